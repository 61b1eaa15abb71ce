"""`oms demo`: the whole chain on a scratch repository (`scratch`), and the conductor over a fleet
of demo workers (`fleet`). Apart from the services: it drives them as a user would."""
