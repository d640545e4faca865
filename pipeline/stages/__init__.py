"""One module per DVC stage; each stage is a function of (params, paths)."""
