"""The ``dealer-station`` command line: one module per subcommand (``main`` dispatches).

The top layer: may import every other ``controller`` package.
"""
