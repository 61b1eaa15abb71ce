"""One workspace's workers, `oms worker deliver|park|resume|stop|observe`: an accepted dispatch's
launch (plan, home, launch spec, pane, session, activation) and every later step of its worker."""
