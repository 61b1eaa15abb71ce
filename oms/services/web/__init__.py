"""`oms web` (ADR 0041): a read-only board in the browser, served on 127.0.0.1 behind a random
token; `board.py` reads what it shows through the services `oms status` uses, `server.py` serves
it with the page's assets (`assets/`, shipped inside the package)."""
