"""What the papers claim, as executable checks, and the tools built on the claims.

``theorems`` imports ``reference``; ``reference`` never imports ``theorems``.
"""
