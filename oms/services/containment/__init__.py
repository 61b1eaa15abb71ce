"""A worker's sandbox seen from outside: its plan (in the launch spec), its bounds while it runs,
its sure end, and what a role gives up of it (`opt_outs`)."""
