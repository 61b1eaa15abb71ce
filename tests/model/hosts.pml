/*
 * Cross-host delivery on an etcd store, checked by spin (ADR 0014, ADR 0017, ADR 0043; issue 28 item 4).
 *
 * A second model beside delivery.pml: that one races every actor of one host over one state root (and
 * would multiply its states by a second host); this one races the deliverers of two hosts over one
 * dispatch D and its event E, the store being an etcd cluster. What is shared is the cluster's: the
 * outbox's processing lock of E, held under a lease, the records (the worker, the session), the
 * receipt, and (ADR 0017) the begun mark. What is per host stays per host: its tmux panes and their
 * supervisors, its launch spec, its pane registry (and, as the code is today, its begun file:
 * GAP_LOCAL_BEGUN).
 *
 *   m_conductor(h)  `oms worker deliver --event-id E` on host h (DELIVERERS_A on host A, DELIVERERS_B on
 *                   host B: each host's conductor delivers the event while it has no receipt)
 *   supervise       the first process of a pane of host h: reads its spec, waits for the session, starts
 *                   the agent (as in delivery.pml, without stop, hang-up and exit records: those are one
 *                   host's, and delivery.pml checks them)
 *   m_env           the cluster's view of time and the network: a live holder's lease lapses (it was
 *                   paused — SIGSTOP, a GC pause, a slow disk — past the lease's TTL while it believed it
 *                   held the lock), host A is partitioned from the cluster for longer than a lease and
 *                   healed; a crashed holder's lease always lapses (nothing keeps it alive)
 *
 * THE LOCK (oms/adapters/etcd/store.py `acquire`): a lease granted, then one transaction
 * `If(create_revision(locks/E) == 0) Then(put locks/E = holder, under the lease)`; the fencing token is
 * that transaction's revision, which is the key's create revision. `release` revokes the lease (the key
 * goes with it). A lease lapses TTL after its last keepalive: the key is deleted, the holder is not told,
 * and it goes on from where it stopped. Another holder may then create the key afresh: a new, higher
 * create revision.
 *
 * THE FENCE (`RecordStore.fenced`, `Outbox.commit_receipt(fence=...)`, `EtcdStore.publish_version` and
 * `create_once`): every write the lock protects is one transaction whose compare includes
 * `create_revision(locks/E) == token`; a failed compare whose lock is gone or re-created raises
 * `LeaseError` and writes nothing. A host cut off from the cluster writes nothing either
 * (`EtcdUnavailableError`); healed, its writes carry the token it had, and the same compare refuses
 * them: a partitioned host is fenced by the same rule as a lapsed lease.
 *
 * WHAT IS THE CODE'S. The lock, its token and the fenced writes are the code's (store.py, records.py,
 * outbox.py), step for step. The deliverer's steps are once.deliver's and launch.py's, as delivery.pml has
 * them, with each store write a fenced transaction: what `oms worker deliver` does on an etcd store
 * (ADR 0043 amendment `etcddeliver`: `Outbox.lock` takes an etcd lock under a lease, and the store
 * carries its fence while it is held). The begun mark is the code's file by -D
 * GAP_LOCAL_BEGUN and ADR 0017's key by default (below); the supervisor's own-pane check is the code's by
 * -D OWN_SESSION=1 (`domain/own_pane.py`): the code is `-DGAP_LOCAL_BEGUN -DOWN_SESSION=1` (the test's
 * `own-session*` configurations). Simplified: one pane observation (start_pane's,
 * which decides the spec: delivery.pml checks the launch's first one against it), a command worker (no
 * activation), no stop, park, resume or observe (one host's requests: delivery.pml), the dispatch stays
 * accepted until a bridge records its result.
 *
 * Granularity: one step = one etcd transaction (a range, a txn, a grant with the lock's txn), one tmux
 * call, one local file. A crash point (CP) follows each step with an effect.
 *
 * STEPS. As in delivery.pml: every `inline`/`proctype` not prefixed `m_` is a step of the code named after
 * its function (oms/domain/protocol.py PROTOCOL_STEPS; the test reads both models).
 *
 * Properties (each `property:` where it is checked):
 *   - exactly one agent start per dispatch across both hosts (`supervise`);
 *   - no receipt, record version or begun mark is written under a lapsed token: a write lands only while
 *     its token is the lock's current create revision, whichever took the lock away (a lease that lapsed
 *     while its holder was paused, or a partition longer than a lease) (`publish_version`, `create_once`);
 *   - a receipt that says it launched did launch, unless its pane's supervisor gave up (its session never
 *     came, or the cluster could not be read) and started nothing (the end of `init`);
 *   - at most one result, and none under a lapsed result lock (`record_result`, BRIDGES: the agent's calls
 *     of record_dispatch_result, each under the per-dispatch result lock, a lease of its host).
 * A partitioned host is checked by the same assertions as a paused holder (PARTITION): its cut lapses its
 * leases, as a pause does, and nothing else tells the two apart. TOKEN_PROPERTY=0 leaves the token
 * property out, to show what a mutation does beyond it (the test: a second agent starts).
 *
 * Mutations (-D; the test asserts spin finds each):
 *   MUT_UNFENCED_WRITE      a write skips the token compare: a holder whose lease lapsed writes after the
 *                           lock was taken afresh
 *                           (with the token property off: the stale deliverer's session lets the other
 *                           host's waiting supervisor start a second agent)
 *   MUT_TOKEN_IS_HOLDER     the token is the holder's name (`value(lock) == host`) instead of the key's
 *                           create revision: a lock re-created by the same host after a lapse is taken for
 *                           the one the stale deliverer took (the token property off: two agents start)
 *
 * Gaps of the code: none open. GAP_LOCAL_BEGUN, found here, is closed in the code by the supervisor's
 * own-pane check (OWN_SESSION, ADR 0043 "branch `ownpane`"); without it, the test asserts spin finds it:
 *   GAP_LOCAL_BEGUN         the begun mark is `panes/D.begun.json` in the host's state root
 *                           (`panefiles.leave_begun`), not a key of the cluster, and the pane's supervisor
 *                           starts on any session of its dispatch (`await_registration`): host A's deliverer
 *                           leaves its mark and creates its pane, and stalls before its session past its
 *                           lease (TTL 10 s; the supervisor waits 60 s); host B's deliverer takes the lock,
 *                           sees no session, no mark (it is on A) and no pane (on B), and launches; its
 *                           session is registered, and both hosts' supervisors start an agent. Each fix alone
 *                           closes it: the mark a key of the cluster written with the token before the pane
 *                           (ADR 0017, the model's default), or the supervisor starting only on a session
 *                           that names its own pane (OWN_SESSION: the test verifies GAP_LOCAL_BEGUN with it).
 *                           It is found on one host too, once the lock is a lease (`same-host`): a deliverer
 *                           whose lease lapsed after its guard leaves its mark and spec (unfenced files) and
 *                           makes a pane after another deliverer's whole launch, whose agent exited; the new
 *                           pane's supervisor starts on that launch's session.
 *                           Not reachable today: `oms worker deliver` refuses an etcd store (ADR 0043).
 *                           Closed by OWN_SESSION in the code: a session names its pane's first process
 *                           (boot id, pid, start time), which only that pane's supervisor is.
 *
 * The supervisor here reads the session from the cluster, as the code's `await_registration` and `stopped`
 * do: through the store backend the launch wrote through (the launch spec's `store`).
 *
 * Also seen, within the properties: a deliverer on host B finds the session host A's launch registered and
 * no live pane — on B: it cannot see A's panes — and parks the worker (`wkr-pre-park`, "an earlier launch
 * has no live pane") while A's agent runs. Safe (one start; the receipt says parked), but the worker's
 * record is wrong until a person looks: ADR 0017 has only the worker's own host decide on its pane.
 *
 * Run (configurations and numbers: ADR 0043's amendment `spin2`; the test runs them):
 *   spin -DPARTITION=1 -a tests/model/hosts.pml && tcc -DSAFETY -DCOLLAPSE -DMEMLIM=1024 -o pan pan.c &&
 *   ./pan -m100000 -w22
 */

/* ------------------------------------------------------------------ configuration (defaults) */
#ifndef DELIVERERS_A
#define DELIVERERS_A 1   /* deliverers of E on host A (2: a second, on the same host, after a lapse) */
#endif
#ifndef DELIVERERS_B
#define DELIVERERS_B 1   /* deliverers of E on host B */
#endif
#ifndef LAPSES
#define LAPSES 1         /* leases of live holders that may lapse (a paused holder) */
#endif
#ifndef PARTITION
#define PARTITION 0      /* 1: host A may be cut from the cluster (longer than a lease) and healed */
#endif
#ifndef CRASHES
#define CRASHES 0        /* crashes of each deliverer (SIGKILL: its lease is not revoked; it lapses) */
#endif
#ifndef AGENT_EXITS
#define AGENT_EXITS 1    /* the agent may exit (its pane is then dead) */
#endif
#ifndef BRIDGES
#define BRIDGES 0        /* calls of the agent's record_dispatch_result (each under the result lock) */
#endif
#ifndef LAUNCHED
#define LAUNCHED 0       /* 1: start where host A's delivery left it: its pane, session, receipt, the agent
                            running (for the bridges' races) */
#endif
#ifndef OWN_SESSION
#define OWN_SESSION 0    /* 1: the supervisor starts only on a session naming its own pane */
#endif

/* ------------------------------------------------------------------ constants */
#define HA 0
#define HB 1
#define MAXINC 3             /* panes per host (a model bound) */
#define MAXREV 16            /* lock creations (a model bound) */
#define PANE(h, inc) ((h) * MAXINC + (inc))   /* a pane of the cluster: its host and incarnation */
#define BIT(i) (1 << (i))

#define HEALTHY 0
#define PARKED 1
#define P_NONE 0
#define P_LIVE 1
#define P_DEAD 2
#define O_NONE 0
#define O_CREATED 1
#define O_REUSED 2
#define O_PARKED 3
#define W_WROTE 1
#define W_CONFLICT 2         /* its own compare failed (a version moved, a key exists) */
#define W_LEASE 3            /* LeaseError: the lock is gone or re-created */
#define W_DOWN 4             /* EtcdUnavailableError: the host is cut off */

/* ------------------------------------------------------------------ the cluster */
byte rev;                    /* the cluster's revision */
#define L_OUTBOX 0           /* locks/outbox/oms-worker-delivery/E: the deliverers' */
#define L_RESULT 1           /* locks/dispatch-results/D: the bridges' (`record_result`) */
byte lk[2];                  /* each lock: its create revision (0: no key) */
byte lkhost[2];              /* its value: the holder's host + 1 (0: no key) */
bool lkdead[2];              /* its holder no longer keeps its lease alive (crashed, or cut off) */
byte dres;                   /* the dispatch's recorded result: the bridge call that won + 1 (0: none) */
byte dnv;                    /* the dispatch record: versions (its CAS) */
byte wnv;                    /* the worker record: versions */
byte whe;                    /* its health */
byte ses;                    /* the session record: the pane its launch registered + 1 (0: none) */
byte rcpt;                   /* outbox/oms-worker-delivery/E.receipt.json: its outcome (created once) */
byte ebegun;                 /* begun/D (ADR 0017: the mark as a key): the host of the first launch + 1 */
bool part[2];                /* the host is cut off from the cluster */

/* ------------------------------------------------------------------ each host */
byte pane[2];                /* the pane named D on the host's tmux server */
byte pinc[2];                /* its incarnation */
bool spec[2];                /* the host's launch spec of D */
bool lbegun[2];              /* panes/D.begun.json in the host's state root (the code today) */
byte registry[2];            /* panes/D.json: the incarnation it names */
byte agents;                 /* bit PANE(h, inc): that pane's agent runs */

/* ------------------------------------------------------------------ observations (for the properties) */
byte starts;                 /* agent starts, every host */
bool gaveup;                 /* a supervisor read its spec and started nothing (no session came, the
                                session was another pane's, or the cluster could not be read) */
byte pending;                /* supervisors that have not yet decided */
byte actors;                 /* deliverers still running */

/* ------------------------------------------------------------------ the fence */
#if defined(MUT_UNFENCED_WRITE)
#define TOKEN_HOLDS(l, t) true               /* the write skips the token compare */
#elif defined(MUT_TOKEN_IS_HOLDER)
#define TOKEN_HOLDS(l, t) (lkhost[l] == h + 1)   /* If(value(lock) == holder): the host, not its revision */
#else
#define TOKEN_HOLDS(l, t) (lk[l] == (t))     /* If(create_revision(lock) == token) */
#endif
#ifndef TOKEN_PROPERTY
#define TOKEN_PROPERTY 1   /* 0: the property below not asserted (to show what else a mutation breaks) */
#endif

#define CP if :: crashes < CRASHES -> crashes++; goto m_crashed :: true fi

/* one fenced transaction: the host cut off writes nothing; a lost lock raises LeaseError; else the write's
   own compare decides (`own`) and `effect` lands. The property holds for every write the lock protects. */
#define M_FENCED(l, own, effect) \
  if \
  :: part[h] -> wres = W_DOWN \
  :: !part[h] && !TOKEN_HOLDS(l, tok) -> wres = W_LEASE \
  :: else -> \
     if \
     :: own -> \
        assert(!TOKEN_PROPERTY || tok == lk[l]);   /* property: nothing lands under a lapsed token */ \
        effect; wres = W_WROTE \
     :: else -> wres = W_CONFLICT \
     fi \
  fi

inline publish_version(expnv, health) {  /* EtcdStore.publish_version: the worker's version N+1 (CAS on the
                                            pointer's value), fenced */
  d_step { M_FENCED(L_OUTBOX, wnv == expnv, wnv++; whe = health) };
  CP
}

inline create_once(what) {  /* EtcdStore.create_once: a key created once, fenced */
  d_step {
    if
    :: what == 0 -> M_FENCED(L_OUTBOX, ses == 0, ses = PANE(h, myinc) + 1)        /* the session (version 0) */
    :: what == 1 -> M_FENCED(L_OUTBOX, ebegun == 0, ebegun = h + 1)              /* begun/D (ADR 0017) */
    :: what == 2 -> M_FENCED(L_OUTBOX, rcpt == O_NONE, rcpt = outcome)          /* the receipt */
    fi
  };
  CP
}

inline acquire(l) {  /* etcd store.acquire: grant a lease, create the key under it if absent (its create
                        revision the token); held: LockHeldError (the caller tries again later) */
  d_step {
    if
    :: !part[h] && lk[l] == 0 ->
       rev++; assert(rev < MAXREV); lk[l] = rev; lkhost[l] = h + 1; lkdead[l] = false; tok = rev; ok = true
    :: else -> ok = false
    fi
  };
  CP
}

inline release(l) {  /* etcd store.release: the lease revoked (the key goes with it); cut off: it lapses */
  d_step {
    if
    :: tok != 0 && lk[l] == tok && !part[h] -> lk[l] = 0; lkhost[l] = 0; lkdead[l] = false
    :: tok != 0 && lk[l] == tok && part[h] -> lkdead[l] = true
    :: else
    fi;
    tok = 0
  }
}

inline commit_receipt() {  /* Outbox.commit_receipt(fence=...): created once, fenced */
  create_once(2);
  if
  :: wres == W_WROTE -> skip
  :: else -> goto l_fail
  fi
}

/* ------------------------------------------------------------------ the pane's supervisor */
#if OWN_SESSION
#define SESSION_FITS (ses == PANE(h, inc) + 1)   /* the session names this pane */
#else
#define SESSION_FITS (ses != 0)                  /* the code: a session of its dispatch */
#endif

inline await_registration() {  /* start_guard.await_registration, its last round (the search takes it at any
                                  point: a wait of any length, its time limit too) */
  d_step {
    pending--;
    if
    :: part[h] -> started = false; gaveup = true     /* its session's record cannot be read */
    :: !part[h] && ses != 0 && SESSION_FITS ->
       agents = agents | BIT(PANE(h, inc)); starts++;
       assert(starts <= 1)                   /* property: exactly one agent start across the hosts */
    :: !part[h] && ses != 0 && !SESSION_FITS -> started = false; gaveup = true   /* another's */
    :: !part[h] && ses == 0 -> started = false; gaveup = true   /* no launch registered it in time */
    fi
  }
}

proctype supervise(byte h; byte inc) {
  bool started;
  d_step {                                   /* launch.consume: read once, removed */
    started = spec[h]; spec[h] = false;
    if :: !started -> pending--; gaveup = true :: else fi
  }
  if
  :: started -> await_registration()
  :: else
  fi;
  if
  :: started ->
end_serve:                                   /* serve the broker while the agent runs */
     AGENT_EXITS;
     agents = agents & ~BIT(PANE(h, inc))    /* the agent exits */
  :: else
  fi;
  d_step {                                   /* the supervisor's group ends; the pane is dead */
    if :: pane[h] == P_LIVE && pinc[h] == inc -> pane[h] = P_DEAD :: else fi
  }
}

/* ------------------------------------------------------------------ the deliverer */
inline ensure(create) {  /* Panes.ensure on host h: the live pane reused, or (only for a launch that wrote
                           its spec) a new one whose first process is the supervisor */
  atomic {
    if
    :: pane[h] == P_LIVE -> status = O_REUSED; myinc = pinc[h]
    :: pane[h] != P_LIVE && !(create) -> status = O_NONE
    :: else ->
       assert(pinc[h] < MAXINC);
       pinc[h]++; pane[h] = P_LIVE; pending++; status = O_CREATED; myinc = pinc[h];
       run supervise(h, pinc[h])
    fi
  }
}

inline _earlier_launch() {  /* may an earlier launch have started the agent? its session, or its mark */
#ifdef GAP_LOCAL_BEGUN
  ok = (ses != 0 || lbegun[h])               /* the code: panes/D.begun.json of this host's state root */
#else
  ok = (ses != 0 || ebegun != 0)             /* ADR 0017: begun/D in the cluster */
#endif
}

inline leave_begun() {  /* panefiles.leave_begun (the code: a file of the host) or begun/D, fenced */
#ifdef GAP_LOCAL_BEGUN
  d_step { lbegun[h] = true };
  CP
#else
  create_once(1);
  if
  :: wres == W_LEASE || wres == W_DOWN -> goto l_fail   /* LeaseError: nothing of this launch is left */
  :: else                                    /* (an existing mark stays: the first launch's) */
  fi
#endif
}

inline _park_worker() {  /* launch.park: parked for `oms worker resume`, fenced (`wkr-pre-park`) */
  d_step { t1 = wnv; t2 = whe };             /* read the worker */
  if
  :: t2 != PARKED ->
     publish_version(t1, PARKED);
     if :: wres != W_WROTE -> goto l_fail :: else fi
  :: else
  fi;
  outcome = O_PARKED
}

inline _register_pane() {  /* panes/D.json on this host */
  d_step { registry[h] = myinc };
  CP
}

inline _register_session() {  /* the session created once (`wkr-reg`), fenced, or the existing one */
  d_step { ok = (ses != 0) };                /* read */
  if
  :: !ok ->
     create_once(0);
     if :: wres != W_WROTE -> goto l_fail :: else fi
  :: else
  fi
}

inline _launch() {  /* launcher.launch_worker (the dispatch accepted; a command worker) */
  d_step { ok = (part[h] == false) };        /* the worker read: idle (the reservation) */
  if :: !ok -> goto l_fail :: else fi;
  d_step {                                   /* start_pane: panes.observe, then _earlier_launch (one step) */
    pv = pane[h];
    _earlier_launch();
    if :: part[h] -> pv = 255 :: else fi     /* (the session could not be read) */
  };
  if
  :: pv == 255 -> goto l_fail
  :: ok && pv != P_LIVE -> _park_worker(); goto l_out   /* an earlier launch, no live pane here */
  :: else
  fi;
  if
  :: pv != P_LIVE ->
     leave_begun();                          /* first: a re-run, on any host, knows it began */
     d_step { spec[h] = true };              /* launch.write */
     CP
  :: else
  fi;
  ensure(pv != P_LIVE);
  if
  :: status == O_NONE ->                     /* the live pane it decided on ended: the worker parks */
     d_step { if :: pane[h] == P_NONE -> spec[h] = false :: else fi };
     CP;
     _park_worker(); goto l_out
  :: else
  fi;
  CP;
  _register_pane();
  _register_session();
  outcome = status                           /* a command worker starts by itself */
}

inline deliver() {  /* once.deliver under E's lock, a lease of the cluster; the conductor delivers the event
                       again until it has a receipt (a held lock: LockHeldError, next time) */
end_acquire:
  do
  :: rcpt != O_NONE -> goto m_done           /* delivered */
  :: lk[L_OUTBOX] == 0 && !part[h] ->
     acquire(L_OUTBOX);
     if :: ok -> break :: else fi
  od;
  skip;
  d_step { ok = !part[h] };                  /* read_receipt */
  if
  :: !ok -> goto l_fail                      /* the cluster cannot be read */
  :: ok && rcpt != O_NONE -> release(L_OUTBOX); goto m_done   /* `replayed`: launch nothing */
  :: else
  fi;
  _launch();
l_out:
  skip;
  commit_receipt();
  goto d_release;
l_fail:                                      /* raised: no receipt; the event is delivered again */
d_release:
  skip;
  release(L_OUTBOX);
  goto m_restart
}

/* ----------------------------------------- results (services/chain/results.py, doors/bridge.py) */
#define ON_A ((agents & (BIT(PANE(HA, 1)) | BIT(PANE(HA, 2)))) != 0)

inline record_result() {  /* results.record_result: under the per-dispatch result lock (a lease of the
                             cluster, taken on the agent's host), decided on the dispatch read under it;
                             the dispatch's version N+1 fenced by that lock's token */
end_lock:
  do
  :: lk[L_RESULT] == 0 && !part[h] ->
     acquire(L_RESULT);
     if :: ok -> break :: else fi
  od;
  skip;
  d_step { ok = !part[h]; t1 = dnv; t2 = dres };          /* the dispatch, read under the lock */
  if
  :: !ok -> goto r_fail
  :: ok && t2 != 0 -> goto r_done            /* `already` (the same result) or a refusal (another) */
  :: else
  fi;
  d_step { M_FENCED(L_RESULT, dnv == t1, dnv++; dres = me + 1) };   /* put_evidence, the transition */
  CP;
  if
  :: wres == W_WROTE -> assert(dres == me + 1)   /* property: at most one result (the CAS) */
  :: else                                    /* a conflict, LeaseError, the cluster unreachable: the
                                                call fails, the agent calls again */
  fi;
r_done:
r_fail:
  skip;
  release(L_RESULT)
}

proctype m_bridge(byte me) {  /* one call of the agent's record_dispatch_result (the agent calls again when
                                 a call hangs or fails: BRIDGES calls, each may be the other's retry) */
  byte tok, crashes, t1, t2, wres, h;
  bool ok;
end_wait:
  (agents != 0);                             /* an agent runs: its bridge is on its host */
  h = (ON_A -> HA : HB);
  record_result();
m_crashed:
  skip;
  d_step { if :: tok != 0 && lk[L_RESULT] == tok -> lkdead[L_RESULT] = true :: else fi; tok = 0 }
}

/* ------------------------------------------------------------------ actors */
proctype m_conductor(byte h) {
  byte tok, crashes, status, outcome, pv, myinc, t1, t2, wres;
  bool ok;
m_restart:
  outcome = O_NONE;
  deliver();
m_crashed:                                   /* SIGKILL: its lease is not revoked; nothing keeps it alive */
  skip;
  d_step { if :: tok != 0 && lk[L_OUTBOX] == tok -> lkdead[L_OUTBOX] = true :: else fi; tok = 0 };
  goto m_restart;                            /* the conductor delivers the event again */
m_done:
  actors--
}

#define M_LAPSE(l) lk[l] != 0 && (lapses > 0 || lkdead[l]) -> \
       if :: !lkdead[l] -> lapses-- :: else fi; \
       lk[l] = 0; lkhost[l] = 0; lkdead[l] = false
#define M_CUT(l) if :: lkhost[l] == HA + 1 -> lk[l] = 0; lkhost[l] = 0; lkdead[l] = false :: else fi

proctype m_env() {
  byte lapses = LAPSES;
  bool cut = PARTITION;
end_env:
  do
  :: d_step { M_LAPSE(L_OUTBOX) }           /* a lease lapses: its holder paused past the TTL, or dead */
  :: d_step { M_LAPSE(L_RESULT) }
  :: d_step {                                /* host A is cut off, longer than a lease: its leases lapse */
       cut -> cut = false; part[HA] = true;
       M_CUT(L_OUTBOX); M_CUT(L_RESULT)
     }
  :: d_step { part[HA] -> part[HA] = false } /* healed: its actors go on with the tokens they had */
  od
}

init {
  byte i;
  atomic {
    whe = HEALTHY; wnv = 1; dnv = 1; rev = 1;
    if
    :: LAUNCHED ->
       ebegun = HA + 1; pinc[HA] = 1; pane[HA] = P_LIVE; registry[HA] = 1; ses = PANE(HA, 1) + 1;
       rcpt = O_CREATED; agents = BIT(PANE(HA, 1)); starts = 1
    :: else
    fi;
    actors = DELIVERERS_A + DELIVERERS_B;
    i = 0;
    do :: i < DELIVERERS_A -> run m_conductor(HA); i++ :: else -> break od;
    i = 0;
    do :: i < DELIVERERS_B -> run m_conductor(HB); i++ :: else -> break od;
    i = 0;
    do :: i < BRIDGES -> run m_bridge(i); i++ :: else -> break od;
    run m_env()
  }
  (actors == 0 && pending == 0);
  d_step {
    /* property: a receipt that says it launched did launch, unless its pane's supervisor started nothing */
    assert((rcpt != O_CREATED && rcpt != O_REUSED) || starts >= 1 || gaveup)
  }
}
