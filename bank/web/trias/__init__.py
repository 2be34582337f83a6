"""Trias at the table: the start page, the board, seat phones, the mirror tablet, the calculator.

routes.py and score_routes.py answer the pages; live.py is the `/trias` Socket.IO
namespace; payloads.py builds what each screen may see (a seat's hand only for that
seat); computer.py plays the computer seats on the server. The games themselves are
bank.services.trias_games around the pure engine trias/.
"""
