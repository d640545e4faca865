"""Playing the champion: the web app, the Gomocup brain and the HTP engine."""
