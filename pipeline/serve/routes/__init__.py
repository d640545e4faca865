"""The web app's endpoints, one router per concern; `create_app` includes them all."""
