"""The field game's pages and JSON API: the console, fight area, admin, big screen and team phones.

api.py books commands through the Bank service and answers; pages.py renders the
templates; payloads.py builds the pictures the pages show; account_routes.py and
session_routes.py are the lead's accounts and devices; addresses.py chooses the address
printed on join cards; host_routes.py lists and creates hosted games. Above
bank.web.access and bank.web.push, beside bank.web.trias.
"""
