"""Dialogs: modal screens that ask for something and return it (a request) via dismiss;
they never call the engine themselves."""
