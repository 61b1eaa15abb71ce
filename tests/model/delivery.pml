/*
 * The oms delivery protocol, checked by spin (ADR 0014; ADR 0009, 0012, 0013).
 *
 * One accepted dispatch D, its delivery event E, its worker record (id D) and its session, as the store
 * keeps them; the tmux pane of D and the processes in it; the actors that race over them:
 *   m_conductor  runs `oms worker deliver --event-id E` (CONDUCTORS of them: the outbox re-delivers)
 *   m_agent      the agent's MCP clients: hook, acknowledge_dispatch, record_dispatch_result (BRIDGES)
 *   m_operator   `oms worker park|resume|stop|observe` (OPS of them, in any order; OPS2 more by a second
 *                operator at the same time: another shell, or `oms conductor tick`'s reconcile phase)
 *   supervise    the first process of every pane: starts the sandbox, ends it, records exit.json
 *   m_env        the outside world: the tmux server dying, a cancel
 * A crash (CRASHES of them, by the actors CRASHING names) is an actor stopping between two steps: after
 * every step of an actor there is a crash point (CP, inside the read/write/lock macros), where it may stop;
 * the crashed actor then runs again from the top (a lock it held is stale: the next acquirer breaks it,
 * so a crash releases it here).
 *
 * Granularity: one step = one store read, one record write (records.py `_write`, whose only atomic act
 * is a no-replace publish of version N+1, so a whole `_write` is one step: every outcome of its internal
 * race rounds is an outcome of some order of whole writes), one lock acquire/release, one tmux call.
 *
 * STEPS. Every `inline`/`proctype` not prefixed `m_` is a step of the code, named after its function;
 * oms/domain/protocol.py PROTOCOL_STEPS maps each name to `module:qualname`, and
 * tests/model/test_protocol_model.py fails when the two lists differ or a function is gone.
 *
 * Properties (assertions; each names itself `property:` where it is checked):
 *   - the store's contract: a replay returns the caller's own transition (`_write`);
 *   - one receipt per event (`commit_receipt`); one launcher at a time (`_launch`);
 *   - only an accepted dispatch reaches its pane (`_launch`);
 *   - exactly one launch: never a second agent start (`supervise`); a receipt that says it launched (or
 *     left its activation pending) did launch, unless a stop took its pane or spec, or its supervisor saw
 *     the stop, saw its terminal hang up, or gave up waiting for the session, and started nothing (the end
 *     of `init`);
 *   - at most one result, each bridge told the truth: the winner, `already` for the same result, a
 *     refusal for a different one (`record_result`);
 *   - worker and result agree: a worker ended by a result ended as the recorded result says (AGREE);
 *   - no pane outlives a stopped worker (PANE_GONE_WHEN_STOPPED, when the worker ends and at the end of
 *     `init`), and nothing starts for one (`supervise`);
 *   - exit.json is written only once its sandbox is dead (`record_exit`);
 *   - the newest pane's end is taken from its own exit record, when its supervisor recorded one that no
 *     launch or stop cleared (OWN_END, `reconcile`);
 *   - an agent starts only once its session is recorded: its Stop gate holds it, and a re-delivery tells a
 *     launched worker by it (`supervise`).
 *
 * Mutations (-D, each re-introduces a known bug; the test asserts spin finds a violation):
 *   MUT_REPLAY_NO_COMPARE   a replay returns the op's version without comparing the transition
 *   MUT_EXIT_BEFORE_END     the supervisor records exit.json before ending the sandbox's group
 *   MUT_RESUME_NOLOCK       resume launches a never-started worker without the outbox lock
 *   MUT_LAUNCH_UNACCEPTED   _launch does not refuse a dispatch that is not accepted
 *   MUT_RESULT_NOLOCK       record_result decides on the bridge's snapshot, outside the per-dispatch lock
 *   MUT_DISCARD_REUSED_SPEC _launch discards the spec of a pane it found `reused` (was GAP_DISCARDED_SPEC)
 *   MUT_RELAUNCH            _launch launches again when the session exists but its pane is not live (was
 *                           GAP_RELAUNCH; both guards gone, the mark's half too)
 *   MUT_NO_STOP_CHECK       no stop check after `ensure`, neither the launch's nor the supervisor's (the code
 *                           before ef200ac; was GAP_STOP_RACE). The launch's alone taken away is not found:
 *                           since 6d72ffa the supervisor's check guards the property by itself
 *   MUT_SUPERVISOR_UNCHECKED      the supervisor starts the sandbox without asking `stopped_meanwhile` (was
 *                                 GAP_STOP_WINDOW: the agent of a stopped worker starts before the launch's
 *                                 own check sees the stop and kills the pane)
 *   MUT_SUPERVISOR_UNCHECKED_CRASH  the same bug, the property looking for the pane of a launch that died
 *                                 between `ensure` and its check (was GAP_STOP_CRASH: nothing ends it)
 *   MUT_GUARD_ON_LIST       _launch decides its relaunch guard (session and mark) only on its first pane
 *                           observation, not on the one that decides the spec (was GAP_RELAUNCH_STALE_LIST: the
 *                           pane of an existing session ends between the two, a new spec and pane start the
 *                           agent again)
 *   MUT_NO_BEGUN_NO_AWAIT   _launch neither leaves nor asks panes/D.begun.json, its guards ask the session
 *                           alone, and the supervisor does not wait for the session (the code before e5763d3;
 *                           was GAP_RELAUNCH_NO_SESSION: a launch dies after `ensure`, before
 *                           `_register_session`; its agent starts, then exits or the tmux server dies; the
 *                           re-run finds no session and no live pane and starts it again). MUT_NO_BEGUN alone
 *                           is not found (defence in depth, below)
 *   MUT_SUPERVISOR_STARTS_HUNG_UP  the supervisor starts the sandbox although its terminal hung up (the code
 *                           before e5763d3: it then ends it at once); after the tmux server died, resume's new
 *                           pane starts the agent and the old pane's supervisor starts another beside it
 *   MUT_EXIT_UNNAMED        exit.json names no pane: end_of takes any record for the pane's end, write_exit
 *                           keeps a record already there (the code before 956e4cc; half of GAP_STALE_EXIT's
 *                           fix): `reconcile` takes the record of the earlier pane's supervisor, which recorded
 *                           "could not start" after resume's launch cleared exit.json, for resume's new pane's
 *                           end, and ends the worker while its agent runs
 *   MUT_EXIT_KEPT           write_exit alone keeps a record already there (end_of compares): the new pane's
 *                           supervisor keeps an earlier pane's record, and its own end is lost (`parent-gone`)
 *   MUT_ENSURE_ANY_SPEC     `ensure` creates a pane although the launch wrote no spec (the code before 956e4cc;
 *                           the other half of GAP_STALE_EXIT's fix): a re-delivery saw the crashed launch's pane
 *                           live, the tmux server took it, a new pane starts the agent on the crashed launch's
 *                           spec, and `reconcile`, the registry still naming the old pane, takes the old pane's
 *                           own end for the worker's while the agent runs. Found with MUT_RECONCILE_NOLOCK
 *                           (the code before 956e4cc): alone, defence in depth (below)
 *   MUT_RECONCILE_NOLOCK    `reconcile` records an end without the deliverer's lock, on its first observation
 *                           (the code before 7334158; was GAP_RECONCILE_AGAIN): it sees no pane and reads the
 *                           registry, still naming the old pane, while resume's `again` launch makes a new one;
 *                           it rightly finds the old pane ended and ends the worker while the new pane's agent
 *                           runs
 *   MUT_EXIT_LATE_REPLACES  write_exit replaces any record of another pane, a later pane's too (the code
 *                           before 7334158; was GAP_LATE_EXIT): the old pane's supervisor, hung up, records
 *                           its end after the newest pane's supervisor recorded its own, and the newest pane's
 *                           end is taken as not recorded (`parent-gone`)
 *   MUT_NO_AWAIT            the supervisor starts the sandbox without waiting for the session (the code before
 *                           552db78): a launch that died between its pane and its session leaves an agent
 *                           whose Stop gate holds nothing
 *
 * Allowances: none since 552db78 (ADR 0014). ONE_START allowed a second start for `oms worker resume` of a
 * worker with no session (STRICT_AGAIN) and for a supervisor hung up between its hang-up check and
 * bubblewrap's exec (STRICT_WINDOW); with no agent starting before its session, neither is reached.
 *
 * Defence in depth (the test asserts spin finds nothing with each alone): MUT_NO_BEGUN (no agent starts
 * before its session, so a launch that died before it started none) and MUT_ENSURE_ANY_SPEC (`reconcile`
 * decides under the lock, after the launch registered its pane). Each is found with the other fix gone:
 * MUT_NO_BEGUN_NO_AWAIT, MUT_ENSURE_ANY_SPEC with MUT_RECONCILE_NOLOCK.
 *
 * Known gaps of the code: none (GAP_RECONCILE_AGAIN and GAP_LATE_EXIT, the last two, closed in 7334158:
 * MUT_RECONCILE_NOLOCK, MUT_EXIT_LATE_REPLACES). A gap found next is written as GAP_* with the property's
 * allowance, and the test asserts spin finds it with -D GAP_* (ADR 0014).
 */

/* ------------------------------------------------------------------ configuration (defaults) */
#ifndef CONDUCTORS
#define CONDUCTORS 1
#endif
#ifndef BRIDGES
#define BRIDGES 0
#endif
#ifndef OPS
#define OPS 0
#endif
#ifndef REQUESTS
#define REQUESTS 15    /* which requests the operator may make: 1 park, 2 resume, 4 stop, 8 observe */
#endif
#ifndef OPS2
#define OPS2 0         /* requests of a second operator, at the same time as the first's (another shell, or
                          `oms conductor tick`, whose reconcile phase observes every worker) */
#endif
#ifndef REQUESTS2
#define REQUESTS2 8    /* which requests the second operator may make (as REQUESTS) */
#endif
#ifndef CRASHES
#define CRASHES 1
#endif
#ifndef CRASHING
#define CRASHING 7     /* who may crash: 1 conductors, 2 agents' bridge calls, 4 the operator's requests */
#endif
#ifndef TMUX_DIES
#define TMUX_DIES 0
#endif
#ifdef MUT_NO_BEGUN_NO_AWAIT      /* the code before e5763d3: neither the mark nor the wait for the session */
#define MUT_NO_BEGUN
#define MUT_NO_AWAIT
#endif
#ifndef AGENT_EXITS
#define AGENT_EXITS 0
#endif
#ifndef CANCEL
#define CANCEL 0
#endif
#ifndef TUI
#define TUI 0          /* 1: activation types the prompt and may fail (an interactive CLI); 0: a command worker */
#endif
#ifndef AUTH_FAILS
#define AUTH_FAILS 0   /* 1: an authority check may refuse the launch (the worker is parked) */
#endif
#ifndef LAUNCHED
#define LAUNCHED 0     /* 1: start where a delivery left it: pane, session and receipt there, the agent starting */
#endif
#ifndef BEGUN
#define BEGUN 0        /* 1: start where a deliverer that died after `_register_pane` left it: the mark, the spec,
                          pane 1 (its supervisor not yet at the spec) and the registry; no session, no receipt */
#endif
#ifndef SAME_RESULT
#define SAME_RESULT 0  /* 1: both bridges send the same result; 0: different results */
#endif

/* ------------------------------------------------------------------ constants */
#define DSP 0
#define WKR 1
#define SES 2
#define NV 8                 /* versions per record kept by the model */
#define MAXINC 4             /* pane incarnations (a model bound) */
#define BIT(i) (1 << (i))

#define D_ACCEPTED 1
#define D_ACKED 2
#define D_RESULT 3
#define D_CANCELLED 4
#define IDLE 0
#define WORKING 1
#define DONE 2
#define BLOCKED 3
#define HEALTHY 0
#define PARKED 1
#define STOPPED 2
#define E_NONE 0
#define E_RESULT 1
#define E_STOPPED 2
#define E_EXIT 3
#define S_NONE 0
#define S_RUNNING 1
#define S_PARKED 2
#define S_STOPPED 3
#define R_COMPLETED 1
#define R_FAILED 2
#define P_NONE 0
#define P_LIVE 1
#define P_DEAD 2
#define W_NONE 0
#define W_WROTE 1
#define W_REPLAYED 2
#define W_CONFLICT 3
#define O_NONE 0
#define O_CREATED 1
#define O_REUSED 2
#define O_PARKED 3
#define O_PENDING 4
#define O_STOPPED 5
#define O_RECOVERED 6
#define O_REFUSED 7
#define B_NONE 0
#define B_WON 1
#define B_ALREADY 2
#define B_REFUSED 3

/* operation ids (stable_id prefixes; a `+ n` adds the part of the id that varies) */
#define OP_ACCEPT 1          /* dsp-accept */
#define OP_ACK 2             /* dsp-ack */
#define OP_RESULT 3          /* dsp-result */
#define OP_CANCEL 4          /* dsp-cancel (+ state) */
#define OP_CREATE 10         /* wkr-create */
#define OP_PRE_PARK 11       /* wkr-pre-park (D, E) */
#define OP_ACT_PARK 12       /* wkr-act-park (D, E) */
#define OP_PRE_RES 13        /* wkr-pre-res (D, E) */
#define OP_WKR_RESULT 14     /* wkr-result (D) */
#define OP_HLTH_PARK 15      /* wkr-hlth-park (D, reason, until) */
#define OP_STOP_END 16       /* wkr-stop-end (D, reason) */
#define OP_ACT_HSTOP 17      /* wkr-act-hstop (D, E) */
#define OP_REUSE_PARK 18     /* wkr-reuse-park (D, E) */
#define OP_LCH_PARK 19       /* wkr-lch-park (D, E) */
#define OP_LIVE 20           /* wkr-live (D, worker version) */
#define OP_HLTH_RES 30       /* wkr-hlth-res (D, session version) */
#define OP_END 40            /* wkr-end (D, pane id) */
#define OP_END_PARK 45       /* wkr-end-park (D, pane id): observe keeps a native resume possible */
#define OP_REG 50            /* wkr-reg (D, E): session creation */
#define OP_PARK 51           /* wkr-park (D, reason, until) */
#define OP_RESUME 52         /* wkr-resume (D, until) */
#define OP_STOP 53           /* wkr-stop (D, reason) */
#define OP_ACT_STOP 54       /* wkr-act-stop (D, E) */
#define OP_END_SESS 60       /* wkr-end-sess (D, pane id) */

/* ------------------------------------------------------------------ the store */
/* records/<kind>/<id>/<version>.json: per version its operation id, state and payload fields */
byte nv[3];                  /* number of versions (0: no record) */
byte hop[3 * NV];
byte hst[3 * NV];
byte hx[3 * NV];             /* dispatch: result_evidence (EVIDENCE); worker: health */
byte hy[3 * NV];             /* worker: end reason */
/* a bridge's evidence: its result and who made it (evidence is signed with its own created_at, so two
   calls never make the same evidence); the result it carries is RESULT_OF(evidence) */
#define EVIDENCE(b) (bres[b] + 4 * ((b) + 1))
#define RESULT_OF(e) ((e) % 4)
#define ST(k) hst[(k) * NV + nv[k] - 1]
#define HX(k) hx[(k) * NV + nv[k] - 1]
#define HY(k) hy[(k) * NV + nv[k] - 1]

byte olock;                  /* outbox/oms-worker-delivery/E.lock: its holder's pid (0: none) */
byte rcpt;                   /* outbox/oms-worker-delivery/E.receipt.json: its outcome (created once) */
byte rlock;                  /* the per-dispatch result lock: its holder's pid (0: none) */
bool spec;                   /* the launch spec (it holds the credential; consumed once) */
byte exit_rec;               /* panes/D.exit.json: the pane incarnation whose supervisor wrote it (its
                                `pane_pid`; 0: none) */
byte kept;                   /* panes (bits) whose supervisor recorded its end, exit.json not cleared since (by a
                                launch or `stop`): their end is in the record (for the properties) */
bool marker;                 /* panes/D.kill.json */
bool begun;                  /* panes/D.begun.json: a first launch began (left before its spec; only `stop` drops it) */
byte registry;               /* panes/D.json: the pane incarnation it names (0: none) */
byte init_rec;               /* panes/D.init.json: the incarnation whose sandbox init it names (0: none) */
bool hooks_ok;               /* liveness: the hooks proved themselves */
bool bridge_ok;              /* liveness: the bridge proved itself */

/* ------------------------------------------------------------------ tmux and processes */
byte pane;                   /* the pane named D: P_NONE, P_LIVE, P_DEAD (remain-on-exit) */
byte pinc;                   /* its incarnation (its pane id) */
byte sups;                   /* bit i: the supervisor of incarnation i runs */
byte agents;                 /* bit i: the sandbox (agent) of incarnation i runs */
byte hup;                    /* bit i: incarnation i's terminal hung up */
byte killed;                 /* bit i: incarnation i's supervisor was SIGKILLed with its group */

/* ------------------------------------------------------------------ observations (for the properties) */
byte starts;                 /* agent starts */
byte unchecked;              /* the pane (bit) a live launch created and has not yet checked for a stop */
byte orphan;                 /* panes (bits) whose launch crashed between `ensure` and that check */
bool hung;                   /* a supervisor saw its terminal hang up before the sandbox and started nothing */
bool timedout;               /* a supervisor waited for its session while no launch was under way, and gave up
                                (Limits.registration_wait_s: its launch died before the session; nothing started) */
bool revoked;                /* `stop` discarded a spec no supervisor had read */
bool refused;                /* a supervisor saw a stop and started nothing */
byte launching;              /* launches past their worker check, not yet returned */
byte pending;                /* supervisors that have not yet decided whether to start (read their spec) */
byte actors;                 /* actors (conductors, agents, operator) still running */
byte won;                    /* bridges whose result was recorded */
byte bres[2];                /* each bridge's result */
byte bout[2];                /* each bridge's outcome */

/* ------------------------------------------------------------------ properties */
/* no pane outlives a stopped worker: once the worker is stopped, every sandbox still running belongs to a
   supervisor whose terminal hung up (it is ending it: SIGHUP, SIGTERM, SIGKILL within 4 s) */
#define PANE_GONE_WHEN_STOPPED (HX(WKR) != STOPPED || (agents & ~hup & ~WINDOW & ~ORPHANS) == 0)
/* (strict since 7334158: `reconcile` records an end only under the deliverer's lock, on the pane as it is
   then; MUT_RECONCILE_NOLOCK puts GAP_RECONCILE_AGAIN back) */
/* (strict since 6d72ffa. The two mutations that take the supervisor's check away each allow the other's
   case, so each finds its own: a pane created by a launch that has not yet made its stop check, which ends
   it once it sees the stop, and a pane whose launch crashed before that check, which nothing ends) */
#if defined(MUT_SUPERVISOR_UNCHECKED) || defined(MUT_SUPERVISOR_UNCHECKED_CRASH) || defined(MUT_NO_STOP_CHECK)
#define SUPERVISOR_UNCHECKED 1
#endif
#ifdef MUT_SUPERVISOR_UNCHECKED_CRASH
#define WINDOW unchecked
#else
#define WINDOW 0
#endif
#ifdef MUT_SUPERVISOR_UNCHECKED
#define ORPHANS orphan
#else
#define ORPHANS 0
#endif
/* exactly one agent start: since 552db78 an agent starts only once its session exists, and a launch finding
   the session starts nothing, so `oms worker resume` of a worker with no session (`again`) starts an agent
   that never ran (ADR 0014: the allowances STRICT_AGAIN and STRICT_WINDOW this property made for it are gone) */
#define ONE_START(inc) (starts <= 1)
/* a worker ended by a result ended as the recorded result says */
#define AGREE (HY(WKR) != E_RESULT || \
               (HX(DSP) != 0 && ST(WKR) == (RESULT_OF(HX(DSP)) == R_COMPLETED -> DONE : BLOCKED)))

/* ------------------------------------------------------------------ model helpers */
#define SCRATCH byte wi, wres, nop, nst, nx, ny
#define ACTOR_LOCALS SCRATCH; bool inl, stp; byte crashes, t1, t2, dst, dnv, dres, wact, whe, wend, wnv, sst, snv, status, outcome, pv, reg; bool ok

/* a crash point: after each step with an effect an actor (of a kind in CRASHING) may stop there (a crash
   right after a read is the same as one right before it: reads have no effect, so they need none) */
#define M_LAUNCHED d_step { if :: inl -> launching--; inl = false :: else fi }
#define CP if :: crashes < CRASHES && (CRASHING & kind) -> crashes++; goto m_crashed :: true fi
/* (each actor has its own budget of CRASHES: a crash point then reads only the actor's own variables) */

#define R_DISPATCH dst = ST(DSP); dnv = nv[DSP]; dres = HX(DSP)
#define R_WORKER wact = ST(WKR); whe = HX(WKR); wend = HY(WKR); wnv = nv[WKR]
#define READ_DISPATCH d_step { R_DISPATCH }
#define READ_WORKER d_step { R_WORKER }
#define READ_SESSION d_step { if :: nv[SES] == 0 -> sst = S_NONE; snv = 0 :: else -> sst = ST(SES); snv = nv[SES] fi }

/* _write's replay: the version the operation produced (the latest, else the op index) answers a retry
   only when the retry asks for the same transition (expected version, state, payload); else a conflict */

inline _replay(k, expnv) {
#ifdef MUT_REPLAY_NO_COMPARE
  wres = W_REPLAYED
#else
  if
  :: wi == expnv && hst[k * NV + wi] == nst && hx[k * NV + wi] == nx && hy[k * NV + wi] == ny -> wres = W_REPLAYED
  :: else -> wres = W_CONFLICT
  fi
#endif
}

/* records.py RecordStore.transition/create (`_write`): one no-replace write of version N+1 (expnv = the
   number of versions the writer read), or a replay, or a conflict; its outcome in wres */

inline m_cas(k, expnv, op, st, x, y) {
  nop = op; nst = st; nx = x; ny = y;
  wres = W_NONE;
  wi = 0;
  do
  :: wi < nv[k] && hop[k * NV + wi] != nop -> wi++
  :: else -> break
  od;
  if
  :: wi < nv[k] -> _replay(k, expnv)
  :: else ->
     if
     :: nv[k] == expnv ->
        assert(nv[k] < NV);
        hop[k * NV + nv[k]] = nop; hst[k * NV + nv[k]] = nst; hx[k * NV + nv[k]] = nx; hy[k * NV + nv[k]] = ny;
        nv[k]++; wres = W_WROTE
     :: else -> wres = W_CONFLICT
     fi
  fi;
  /* the store's contract (ADR 0002): a replay returns the caller's own transition, never another */
  assert(wres != W_REPLAYED ||
         (wi == expnv && hst[k * NV + wi] == nst && hx[k * NV + wi] == nx && hy[k * NV + wi] == ny));
  wi = 0; nop = 0; nst = 0; nx = 0; ny = 0
}

inline _write(k, expnv, op, st, x, y) {
  d_step { m_cas(k, expnv, op, st, x, y) };
  CP
}

/* ------------------------------------------------------------------ outbox (store/outbox.py, fsio/locks.py) */

inline lock() {  /* Outbox.lock -> locks.acquire: no-replace create; a live holder: LockHeldError */
  d_step { if :: olock == 0 -> olock = _pid; ok = true :: else -> ok = false fi };
  CP
}

inline commit_receipt() {  /* created once, never replaced (only the lock holder commits) */
  d_step { assert(olock == _pid); assert(rcpt == O_NONE); rcpt = outcome };
  CP
}

/* ------------------------------------------------------------------ liveness, fence */

inline m_promote() {
  if
  :: hooks_ok && bridge_ok && ST(WKR) == IDLE && HX(WKR) == HEALTHY ->
     m_cas(WKR, nv[WKR], OP_LIVE + nv[WKR], WORKING, HEALTHY, HY(WKR))
  :: else
  fi;
  wres = W_NONE
}

inline promote() {  /* liveness.promote: an idle healthy worker is `working` once both channels spoke.
                      Its read-CAS-retry loop takes effect at its one successful CAS: one step here. */
  d_step { m_promote() };
  CP
}

inline record_hook() {  /* liveness.record_hook: the hooks proved themselves (SessionStart, in the broker) */
  d_step { hooks_ok = true; m_promote() }
}

inline fence_park() {  /* fence.park: a fenced attempt's worker is parked, never stopped (`wkr-fence`: a
                         read-CAS-retry loop, one step here) */
  d_step {
    if
    :: ST(WKR) != DONE && ST(WKR) != BLOCKED && HX(WKR) != STOPPED && HX(WKR) != PARKED ->
       m_cas(WKR, nv[WKR], OP_LIVE + 5 + nv[WKR], ST(WKR), PARKED, HY(WKR))
    :: else
    fi;
    wres = W_NONE
  };
  CP
}

inline fence_require_live() {  /* fence.require_live: a lapsed attempt (here: a cancelled dispatch) is refused */
  if
  :: dst == D_CANCELLED -> goto o_refused
  :: else
  fi
}

/* -------------------------------------------- the supervisor (services/supervisor/supervise.py) */

inline record_init() {  /* reaper.record_init: bubblewrap named its init (replacing an earlier launch's) */
  init_rec = inc
}

inline end_sandbox() {  /* reaper.end_sandbox: kill the recorded init (its whole namespace), forget it */
  d_step {
    if
    :: init_rec != 0 -> agents = agents & ~BIT(init_rec); init_rec = 0
    :: else
    fi
  }
}

inline record_exit() {  /* supervise.record_exit -> panefiles.write_exit: once per pane, naming it (pane_pid)
                          and when it started (pane_started: incarnations start in order); a record its own
                          pane or a later pane published stays, one an earlier pane left is replaced.
                          One step: its drop-then-publish shows a reader no record for a moment, which
                          end_of takes as it takes an earlier pane's record (not this pane's end) */
  d_step {
    assert(!(agents & BIT(inc)));            /* property: exit.json is written only once its sandbox is dead */
    kept = kept | BIT(inc);
#if defined(MUT_EXIT_UNNAMED) || defined(MUT_EXIT_KEPT)
    if :: exit_rec == 0 -> exit_rec = inc :: else fi   /* the code before 956e4cc: a record already there is kept */
#elif defined(MUT_EXIT_LATE_REPLACES)
    exit_rec = inc                           /* the code before 7334158: another pane's record, a later one too */
#else
    if :: exit_rec <= inc -> exit_rec = inc :: else fi  /* a later pane's record stays */
#endif
  }
}

inline stopped_meanwhile(launch) {  /* launch_guards.stopped, asked by a launch after `ensure` and by the
                                      supervisor before the sandbox: `stop`'s kill marker (left first), else
                                      the worker's end (stop ends the worker before it drops the marker);
                                      stp: it must not run */
  d_step { stp = marker };                   /* panefiles.read_kill */
  if
  :: !stp ->
     d_step {                                /* the worker: no longer idle/working, or stopped */
       stp = ((ST(WKR) != IDLE && ST(WKR) != WORKING) || HX(WKR) == STOPPED);
       if :: launch && !stp -> unchecked = 0 :: else fi   /* (a stop from now on finds the pane, kills it) */
     }
  :: else
  fi
}

#define M_START \
      pending--; consumed = true; \
      if \
      :: started -> \
         agents = agents | BIT(inc); starts++; \
         assert(SESSION_KNOWN);              /* property: an agent starts only once its session is recorded */ \
         assert(ONE_START(inc));             /* property: exactly one launch (never a second start) */ \
         assert(PANE_GONE_WHEN_STOPPED);     /* property: nothing starts for a stopped worker (but under a \
                                                hung-up supervisor, which ends what it starts) */ \
      :: else \
      fi

/* (the supervisor that starts its sandbox without the session check: the mutations taking its stop check away
   model the code before the wait too) */
#if defined(SUPERVISOR_UNCHECKED) || defined(MUT_SUPERVISOR_STARTS_HUNG_UP) || defined(MUT_NO_BEGUN_NO_AWAIT)
#define SESSION_KNOWN 1
#else
#define SESSION_KNOWN (nv[SES] != 0)
#endif

inline await_registration() {  /* the wait's loop, its last round: the search takes it at any point, so a
                                  wait of any length is covered, and its time limit too (a launch stalled
                                  for Limits.registration_wait_s between its pane and its session) */
  stopped_meanwhile(false);
  d_step {
    if
    :: stp -> started = false; refused = true; stp = false; pending--; consumed = true
    :: !stp && (hup & BIT(inc)) -> started = false; hung = true; pending--; consumed = true
    :: !stp && !(hup & BIT(inc)) && nv[SES] != 0 -> skip   /* the session: it may start */
    :: !stp && !(hup & BIT(inc)) && nv[SES] == 0 ->
       started = false; timedout = true; pending--; consumed = true   /* "no launch registered its session" */
    fi
  }
}

proctype supervise(byte inc) {
  bool started, consumed, seen, stp;
  SCRATCH;
  {
#ifdef SUPERVISOR_UNCHECKED
    d_step {                                 /* launch.consume: read once, removed; the sandbox starts */
      started = spec; spec = false;
      M_START
    }
#else
    d_step {                                 /* launch.consume: read once, removed */
      started = spec; spec = false;
      if :: !started -> pending--; consumed = true :: else fi
    }
    if
    :: started ->
#if !defined(MUT_NO_AWAIT) && !defined(MUT_SUPERVISOR_STARTS_HUNG_UP)
       await_registration();                 /* launch_guards.await_registration (its loop asks
                                                launch_guards.stopped): a stop came, the terminal hung up, or
                                                no launch will register the session: nothing starts */
#else
       stopped_meanwhile(false);             /* the code before 552db78: launch_guards.stopped alone */
#endif
#ifndef MUT_SUPERVISOR_STARTS_HUNG_UP
       d_step {
         if
         :: !started -> skip                 /* (the wait decided) */
         :: started && stp -> started = false; refused = true; stp = false; pending--; consumed = true
         :: else ->                          /* (the log, the socket, the sandbox's arguments, then) _Run.run:
                                                SIGHUP received? (the pane or the tmux server is gone) */
            if
            :: hup & BIT(inc) -> started = false; hung = true; pending--; consumed = true   /* "did not
                                                start: its terminal hung up" */
            :: else                          /* (a hang-up from now on: the sandbox starts, and is ended) */
            fi
         fi
       };
       d_step {                              /* start_foreground: bubblewrap's exec, a step after the check */
         if
         :: started -> M_START               /* the sandbox starts */
         :: else
         fi
       }
#else
       d_step {                              /* the code before e5763d3: no hang-up check */
         if
         :: !started -> skip
         :: started && stp -> started = false; refused = true; stp = false; pending--; consumed = true
         :: else -> M_START                  /* the sandbox starts */
         fi
       }
#endif
    :: else
    fi;
#endif
    if
    :: !started -> record_exit(); goto s_end   /* "the worker could not start" / "did not start" */
    :: else
    fi;
    record_hook();
end_serve:
    do                                       /* serve the broker until the sandbox ends */
    :: !seen && (agents & BIT(inc)) -> seen = true; record_init()   /* _status: bubblewrap's child-pid */
    :: AGENT_EXITS && (agents & BIT(inc)) -> agents = agents & ~BIT(inc); break   /* the agent exits */
    :: !(agents & BIT(inc)) -> break         /* its init was killed from outside (reaper) */
    :: hup & BIT(inc) -> break               /* the terminal hung up: SIGHUP, SIGTERM, SIGKILL */
    od;
#ifdef MUT_EXIT_BEFORE_END
    record_exit();
    agents = agents & ~BIT(inc);
    end_sandbox();
#else
    agents = agents & ~BIT(inc);             /* the sandbox's group ends first (child.kill, die-with-parent) */
    end_sandbox();                           /* reaper: its init, should it have outlived bubblewrap */
    record_exit();                           /* then panes/D.exit.json */
#endif
  } unless { killed & BIT(inc) };            /* SIGKILLed with its group by panes.stop */
s_end:
  skip;
  d_step {                                   /* end_own_group: the supervisor's group ends; the pane is dead */
    sups = sups & ~BIT(inc);
    if
    :: !consumed -> pending--                /* killed before it decided */
    :: else
    fi;
    if
    :: pane == P_LIVE && pinc == inc -> pane = P_DEAD
    :: else
    fi
  }
}

/* ------------------------------------------------------------------ panes (adapters/panes.py) */

inline ensure(create) {  /* the dispatch's live pane: reused, or created (a dead one is killed first) — only
                           with `create`: the launch wrote the spec (start_pane's `wrote`); else it raises
                           (ProcessError: the live pane the launch decided on has ended), status O_NONE */
  atomic {
    if
    :: pane == P_LIVE -> status = O_REUSED
#ifndef MUT_ENSURE_ANY_SPEC
    :: pane != P_LIVE && !(create) -> status = O_NONE
#endif
    :: else ->                               /* (MUT_ENSURE_ANY_SPEC, the code before 956e4cc: also for a
                                                launch that wrote no spec and cleared no exit.json) */
       assert(pinc < MAXINC);
       pinc++; pane = P_LIVE; sups = sups | BIT(pinc); pending++; status = O_CREATED; unchecked = BIT(pinc);
       run supervise(pinc)                   /* the pane's first process: `oms worker supervise` */
    fi
  }
}

inline m_panes_stop() {  /* Panes.stop: quit keys, kill-session, kill_group(pane_pid) */
  d_step {
    if
    :: pane != P_NONE ->
       if
       :: pane == P_LIVE && (sups & BIT(pinc)) ->
          killed = killed | BIT(pinc); sups = sups & ~BIT(pinc);
          agents = agents & ~BIT(pinc)      /* bubblewrap --die-with-parent */
       :: else
       fi;
       hup = hup | BIT(pinc); pane = P_NONE; unchecked = unchecked & ~BIT(pinc)
    :: else
    fi
  }
}

/* ---------------------------------------------------------------- delivery (services/delivery/) */

inline _worker_step(health, op) {  /* workers.set_health then a CAS; an illegal move or a conflict raises */
  if
  :: whe == health || whe == STOPPED -> goto l_fail
  :: else
  fi;
  _write(WKR, wnv, op, wact, health, wend);
  if
  :: wres == W_CONFLICT -> goto l_fail
  :: else
  fi
}

inline _session_step(state, op) {
  _write(SES, snv, op, state, 0, 0);
  if
  :: wres == W_CONFLICT -> goto l_fail
  :: else
  fi
}

inline _end_worker(op, reason) {  /* health stopped, activity blocked (if still idle/working), the end reason */
  if
  :: whe == STOPPED && wact != IDLE && wact != WORKING -> skip
  :: else ->
     d_step {
       t1 = (wact == IDLE || wact == WORKING -> BLOCKED : wact);
       t2 = ((wact == IDLE || wact == WORKING || wend == E_NONE) -> reason : wend);
       m_cas(WKR, wnv, op, t1, STOPPED, t2);
       t1 = 0; t2 = 0;
       assert(wres == W_CONFLICT || PANE_GONE_WHEN_STOPPED)   /* property: no pane outlives it */
     };
     CP;
     if
     :: wres == W_CONFLICT -> goto l_fail
     :: else
     fi
  fi
}

inline _park_worker(op) {  /* park with a bounded reason (unless parked already); the outcome says parked */
  READ_WORKER;
  if
  :: whe != PARKED -> _worker_step(PARKED, op)
  :: else
  fi;
  outcome = O_PARKED
}

inline _check_binding() {  /* the event names the accepted version of D (version 0 here): it always does */
  assert(nv[DSP] > 0 && hst[DSP * NV] == D_ACCEPTED)
}

inline _recover() {  /* an advanced or cancelled dispatch: its exact session binding (`recovered`);
                        a cancelled one that never got a session: `refused`; else
                        AuthorityChangedError */
  if
  :: dst != D_ACKED && dst != D_RESULT && dst != D_CANCELLED -> goto l_fail
  :: else
  fi;
  READ_SESSION;
  if
  :: sst == S_NONE && dst == D_CANCELLED -> outcome = O_REFUSED; goto l_out
  :: sst == S_NONE -> goto l_fail
  :: else -> outcome = O_RECOVERED; goto l_out
  fi
}

inline _register_pane() {  /* panes/D.json names the pane */
  registry = pinc;
  CP
}

inline _register_session() {  /* the session of D: created once (`wkr-reg`), or the existing one */
  READ_SESSION;
  if
  :: sst == S_NONE -> _write(SES, 0, OP_REG, S_RUNNING, 0, 0); if :: wres == W_CONFLICT -> goto l_fail :: else fi
  :: else
  fi
}

inline activate() {  /* a command worker starts by itself; a TUI needs its live pane and may not take it */
  ok = true;
#if TUI
  if
  :: pane != P_LIVE -> ok = false
  :: else ->
     if
     :: true
     :: ok = false                           /* not ready in time, or the instruction was not taken */
     fi
  fi
#endif
}

inline _after_failed_activation() {
  d_step { pv = pane };
  if
  :: pv == P_LIVE -> _park_worker(OP_ACT_PARK); outcome = O_PENDING     /* activation_pending */
  :: else ->
     READ_SESSION;
     if
     :: sst != S_NONE && sst != S_STOPPED -> _session_step(S_STOPPED, OP_ACT_STOP)
     :: else
     fi;
     READ_WORKER;
     if
     :: whe != STOPPED -> _end_worker(OP_ACT_HSTOP, E_EXIT)
     :: else
     fi;
     outcome = O_STOPPED
  fi
}

inline _earlier_launch(again) {  /* may an earlier launch have started the agent? Its session exists, or (unless
                                    `again`) it began: panes/D.begun.json. Read in the step that observes the
                                    pane: only a launcher, holding the lock, creates either, and only `stop`
                                    (after it took the pane) drops the mark, so one step decides as the code's
                                    reads in turn do. Its answer in ok */
#ifdef MUT_NO_BEGUN
  ok = (nv[SES] != 0)                        /* the code before e5763d3: the session alone */
#else
  ok = (nv[SES] != 0 || (!again && begun))
#endif
}

inline leave_begun() {  /* panefiles.leave_begun: a first launch records that it began, before its spec and its
                           pane (an existing record stays; only `stop` drops it) */
  d_step { begun = true };
  CP
}

inline _launch(again) {  /* launcher.launch_worker; `again`: resume of a worker with no session (a person's
                            decision: an earlier launch begun does not park it) */
#ifndef MUT_LAUNCH_UNACCEPTED
  if
  :: dst != D_ACCEPTED -> goto l_fail       /* on every path (deliver, resume): only an accepted dispatch */
  :: else
  fi;
#endif
  /* check_dispatch, checkout.verify, plan, materialise, the spec's contents: they read, or write only
     files of this launch; each refusal parks the worker (`wkr-pre-park`) */
  if
  :: true
  :: AUTH_FAILS -> _park_worker(OP_PRE_PARK); goto l_out
  fi;
  d_step {                                   /* one idle healthy-or-parked reservation, or refuse */
    R_WORKER;
    if
    :: wact != IDLE || (whe != HEALTHY && whe != PARKED) -> ok = false
    :: else ->
       ok = true; inl = true; launching++;
       assert(launching == 1)                /* property: one launcher at a time (deliver and resume share
                                                the outbox lock), so no two type the instruction */
    fi
  };
  if
  :: !ok -> goto l_fail
  :: else
  fi;
#ifndef MUT_RELAUNCH
  d_step {                                   /* _earlier_launch (the session, the mark), then panes.observe */
    _earlier_launch(again);
    pv = pane
  };
  if                                         /* an earlier launch, and no live pane: parked for `oms worker
                                                resume`, never a second start (`wkr-pre-park`) */
  :: ok && pv != P_LIVE -> _park_worker(OP_PRE_PARK); goto l_out
  :: else
  fi;
#endif
  d_step {                                   /* start_pane: panes.observe, then _earlier_launch (one step, as
                                                above) */
    pv = pane;
    _earlier_launch(again)
  };
#if !defined(MUT_RELAUNCH) && !defined(MUT_GUARD_ON_LIST)
  if                                         /* the guard again, on the observation that decides the spec:
                                                it raises and the worker parks (`wkr-lch-park`) */
  :: ok && pv != P_LIVE -> _park_worker(OP_LCH_PARK); goto l_out
  :: else
  fi;
#endif
  if                                         /* no pane, or a dead one: a new pane starts */
  :: pv != P_LIVE ->
#ifndef MUT_NO_BEGUN
     leave_begun();                          /* first: a re-run then knows this launch may have started it */
#endif
     d_step { exit_rec = 0; kept = 0; spec = true };   /* panefiles.clear_exit, launch.write */
     CP
  :: else
  fi;
  assert(dst == D_ACCEPTED);                 /* property: only an accepted dispatch reaches its pane */
  ensure(pv != P_LIVE);                      /* create=wrote (956e4cc, ADR 0014: was GAP_STALE_EXIT) */
  if
  :: status == O_NONE ->                     /* it raised: start_pane discards the spec if no pane is left to
                                                read it (panes.observe, launch.discard: one step), and the
                                                worker parks (`wkr-lch-park`) */
     d_step { if :: pane == P_NONE -> spec = false :: else fi };
     CP;
     _park_worker(OP_LCH_PARK); goto l_out
  :: else
  fi;
  CP;
#ifdef MUT_DISCARD_REUSED_SPEC
  if
  :: status == O_REUSED && pv == P_LIVE -> spec = false; CP   /* launch.discard of a spec it did not write */
  :: else
  fi;
#endif
  /* (a reused pane's spec stays for its supervisor, which consumes it; `stop` discards one nobody took) */
#ifndef MUT_NO_STOP_CHECK
  stopped_meanwhile(true);
  if
  :: stp ->                                  /* `stop` came meanwhile: end the pane this launch made, raise */
     if
     :: status == O_CREATED -> m_panes_stop(); CP; spec = false; CP   /* launch.discard */
     :: else
     fi;
     goto l_fail
  :: else
  fi;
#else
  unchecked = 0;
#endif
  _register_pane();
  _register_session();
  if                                         /* after_ensure: only the pane's creator types the instruction */
  :: status == O_REUSED && TUI -> _park_worker(OP_REUSE_PARK); outcome = O_PENDING; goto l_out
  :: status == O_REUSED && !TUI -> skip      /* a command worker needs none */
  :: else ->
     activate();
     if
     :: !ok -> _after_failed_activation(); goto l_out
     :: else
     fi
  fi;
  READ_DISPATCH;                             /* fence.reason: lapsed while activating -> it stays parked */
  if
  :: dst == D_CANCELLED -> fence_park(); outcome = O_PARKED; goto l_out
  :: else
  fi;
  READ_WORKER;
  if
  :: whe == PARKED -> _worker_step(HEALTHY, OP_PRE_RES)
  :: else
  fi;
  promote();
  outcome = status;
  goto l_out
}

inline deliver() {
  lock();
  if
  :: !ok -> goto d_end                       /* LockHeldError: a live deliverer has it */
  :: else
  fi;
  if
  :: rcpt != O_NONE -> goto d_release        /* read_receipt: `replayed`, launch nothing */
  :: else
  fi;
  READ_DISPATCH;
  _check_binding();
  if
  :: dst == D_ACCEPTED -> _launch(false)
  :: else -> _recover()
  fi;
l_out:
  skip;
  M_LAUNCHED;
  commit_receipt();
  goto d_release;
l_fail:                                      /* raised: no receipt; the event is delivered again */
d_release:
  skip;
  M_LAUNCHED;
  d_step { assert(olock == _pid); olock = 0 }
d_end:
  skip
}

/* ------------------------------------------------------------------ lifecycle requests */

/* end_of: an exit record is this pane's end only if it names this pane (its supervisor's pid: the pane tmux
   shows, or the registry's for a pane that is gone); a record of another pane is taken as none */
#ifdef MUT_EXIT_UNNAMED
#define OWN_EXIT(p) (exit_rec != 0)          /* the code before 956e4cc: any record is this pane's end */
#else
#define OWN_EXIT(p) (exit_rec == (p))
#endif
/* property: the newest pane's end is taken from its own record when its supervisor recorded one that nothing
   cleared (not from another pane's, and not `parent-gone` for want of one; strict since 7334158: an earlier
   pane's late record never replaces a later pane's, MUT_EXIT_LATE_REPLACES puts GAP_LATE_EXIT back) */
#define OWN_END(p) ((p) != pinc || !(kept & BIT(p)) || exit_rec == (p))

inline _end(strict) {  /* reconcile._end: panes.observe, the worker, then (no pane) the registry, exit.json
                          (end_of); ok: an end to record, on the pane `reg`. `strict`: the decision that acts
                          checks the property */
  d_step { pv = pane; reg = pinc };          /* panes.observe */
  READ_WORKER;
  d_step {
    ok = (pv != P_LIVE && whe != STOPPED);
    assert(!strict || !ok || pv != P_DEAD || OWN_END(reg))   /* property: its own end (read_exit, end_of) */
  };
  if
  :: ok && pv == P_NONE ->                   /* the pane is gone (its tmux server died, or stop killed it) */
     d_step {
       reg = registry;
       if
       :: reg == 0 -> ok = false             /* never launched, or stopped and forgotten */
       :: reg != 0 && !OWN_EXIT(reg) && (sups & BIT(reg)) -> ok = false   /* group_alive: a hiccup ends
                                                                                nothing */
       :: else
       fi;
       assert(!strict || !ok || OWN_END(reg))   /* property: its own end */
     }
  :: else
  fi
}

inline _keep_resumable() {  /* a person's `observe` of an agent with a native session to continue:
                              the end is recorded as a park, so `oms worker resume` relaunches it
                              (relaunch: not modelled); a worker parked already keeps its park */
  if
  :: whe == HEALTHY -> _worker_step(PARKED, OP_END_PARK + reg)
  :: else
  fi
}

inline reconcile() {  /* record why a worker whose pane ended has ended: decided without a lock (the common case
                        takes none), then again under the deliverer's lock of the worker's launch, on the pane
                        as it is then (a launch under way holds it: LockHeldError, nothing is recorded) */
#ifdef MUT_RECONCILE_NOLOCK
  _end(true);                                /* the code before 7334158: the first decision acts */
#else
  _end(false);
  if
  :: ok ->
     lock();
     if
     :: ok -> _end(true)
     :: else                                 /* LockHeldError: a launch is under way; next time */
     fi
  :: else
  fi;
#endif
  if
  :: ok ->
     end_sandbox();
     CP;
     READ_DISPATCH;
     READ_SESSION;
     if
     :: !marker && (dst == D_ACCEPTED || dst == D_ACKED) && (sst == S_RUNNING || sst == S_PARKED) ->
        _keep_resumable()                    /* (the conductor's tick takes the other branch) */
     :: true ->
        if
        :: sst != S_NONE && sst != S_STOPPED -> _session_step(S_STOPPED, OP_END_SESS + reg)
        :: else
        fi;
        t1 = (marker -> E_STOPPED : E_EXIT);   /* panes/D.kill.json: `oms worker stop` ended it */
        _end_worker(OP_END + reg, t1)
     fi
  :: else
  fi;
  d_step { if :: olock == _pid -> olock = 0 :: else fi }   /* the lock goes (if this request holds it) */
}

inline observe() {  /* reconcile; (check_liveness: silent channels need time, not modelled) */
  reconcile()
}

inline park() {
  READ_DISPATCH;
  READ_SESSION;
  if
  :: sst == S_NONE -> goto o_refused         /* _require_session */
  :: else
  fi;
  READ_WORKER;
  if
  :: (sst != S_RUNNING && sst != S_PARKED) || (whe != HEALTHY && whe != PARKED) -> goto o_refused
  :: else
  fi;
  if                                         /* (park keys reach a live pane: no record changes) */
  :: sst != S_PARKED -> _session_step(S_PARKED, OP_PARK)
  :: else
  fi;
  if
  :: whe != PARKED -> _worker_step(PARKED, OP_HLTH_PARK)
  :: else
  fi
}

inline resume() {
  READ_DISPATCH;
  fence_require_live();
  READ_SESSION;
  if
  :: sst == S_NONE ->                        /* never launched: launch it, under the deliverer's lock */
#ifndef MUT_RESUME_NOLOCK
     lock();
     if
     :: !ok -> goto o_refused                /* LockHeldError: refused in one line */
     :: else
     fi;
#endif
     READ_DISPATCH;
     READ_SESSION;
     if
     :: sst != S_NONE -> goto l_fail         /* launched meanwhile: observed, not repeated */
     :: else
     fi;
     _launch(true);                          /* lifecycle._launch_unstarted: again=True */
l_out:
l_fail:
     skip;
     M_LAUNCHED;
#ifndef MUT_RESUME_NOLOCK
     d_step { if :: olock == _pid -> olock = 0 :: else fi }
#endif
     skip
  :: else ->
     READ_WORKER;
     if
     :: (sst != S_PARKED && sst != S_RUNNING) || (whe != PARKED && whe != HEALTHY) -> goto o_refused
     :: else
     fi;
     d_step { pv = pane };
     if
     :: pv != P_LIVE -> goto o_refused       /* without its live bound pane */
     :: else
     fi;
     if
     :: sst == S_RUNNING && snv == 1 && whe == PARKED && rcpt == O_PENDING ->
        activate();                          /* the activation a failed delivery left pending */
        if
        :: !ok -> goto o_refused
        :: else
        fi
     :: else                                 /* ("Continue the dispatch where you stopped.") */
     fi;
     if
     :: sst == S_PARKED -> _session_step(S_RUNNING, OP_RESUME); snv = nv[SES]
     :: else
     fi;
     if
     :: whe == PARKED ->
        READ_DISPATCH;
        fence_require_live();
        _worker_step(HEALTHY, OP_HLTH_RES + snv)
     :: else
     fi;
     promote()
  fi
}

inline stop() {
  d_step {
    marker = true                            /* panes/D.kill.json: left first */
  };
  CP;
  m_panes_stop();
  CP;
  end_sandbox();
  CP;
  READ_SESSION;
  if
  :: sst != S_NONE && sst != S_STOPPED -> _session_step(S_STOPPED, OP_STOP)
  :: else
  fi;
  READ_WORKER;
  if
  :: whe != STOPPED || (wact != DONE && wact != BLOCKED) -> _end_worker(OP_STOP_END, E_STOPPED)
  :: else
  fi;
  d_step {
    registry = 0;                            /* _drop_registry */
    marker = false;                          /* the kill marker goes */
    exit_rec = 0; kept = 0;                  /* panefiles.clear_exit */
    begun = false;                           /* panefiles.drop_begun */
    if :: spec -> revoked = true :: else fi;
    spec = false                             /* launch.discard: a spec no supervisor took */
  };
  CP
}

/* ----------------------------------------- results (services/chain/results.py, doors/bridge.py) */

inline _finish_worker() {  /* done (completed) or blocked, end reason result-recorded (`wkr-result`; its
                             read-CAS-retry loop is one step here) */
  d_step {
    if
    :: ST(WKR) == IDLE || ST(WKR) == WORKING ->
       t1 = (bres[me] == R_COMPLETED -> DONE : BLOCKED);
       m_cas(WKR, nv[WKR], OP_WKR_RESULT, t1, HX(WKR), E_RESULT);
       assert(wres == W_WROTE && AGREE)
    :: else
    fi;
    wres = W_NONE; t1 = 0
  };
  CP
}

inline acknowledge_dispatch() {
  d_step { bridge_ok = true; m_promote() };  /* liveness.record_bridge, then promote */
  CP;
  d_step {                                   /* accepted -> acknowledged (`dsp-ack`), else `already` */
    if
    :: ST(DSP) == D_ACCEPTED -> m_cas(DSP, nv[DSP], OP_ACK, D_ACKED, 0, 0)
    :: else
    fi;
    wres = W_NONE
  };
  CP
}

inline record_result() {
  READ_DISPATCH;                             /* the bridge's binding (self._dispatch) and fence.require */
  if
  :: dst == D_CANCELLED -> fence_park(); bout[me] = B_REFUSED; goto b_done
  :: dst == D_ACCEPTED -> goto b_retry       /* "call acknowledge_dispatch before record_dispatch_result" */
  :: else
  fi;
#ifndef MUT_RESULT_NOLOCK
  d_step { rlock == 0 -> rlock = _pid };     /* the per-dispatch result lock (held: the agent retries) */
  CP;
  READ_DISPATCH;                             /* decided on the dispatch read under the lock */
#endif
  if
  :: dst == D_RESULT ->                      /* a retry: the same result again, or a refusal */
     if
     :: RESULT_OF(dres) == bres[me] -> _finish_worker(); bout[me] = B_ALREADY
     :: else -> bout[me] = B_REFUSED
     fi
  :: dst == D_CANCELLED -> bout[me] = B_REFUSED
  :: else ->
     _write(DSP, dnv, OP_RESULT, D_RESULT, EVIDENCE(me), 0);   /* put_evidence, then the transition */
     if
     :: wres == W_CONFLICT -> bout[me] = B_REFUSED     /* VersionConflictError: an error result */
     :: else ->
        bout[me] = (wres == W_WROTE -> B_WON : B_ALREADY);
        _finish_worker()
     fi
  fi;
  d_step {
#ifndef MUT_RESULT_NOLOCK
    assert(rlock == _pid); rlock = 0;
#endif
    /* property: at most one result, and each bridge is told the truth about it */
    if
    :: bout[me] == B_WON -> won++; assert(won == 1); assert(RESULT_OF(HX(DSP)) == bres[me])
    :: bout[me] == B_ALREADY -> assert(ST(DSP) == D_RESULT && RESULT_OF(HX(DSP)) == bres[me])
    :: bout[me] == B_REFUSED ->
       assert(ST(DSP) == D_CANCELLED || (ST(DSP) == D_RESULT && RESULT_OF(HX(DSP)) != bres[me]))
    fi;
    dst = 0; dnv = 0; dres = 0; wres = W_NONE
  }
}

/* ------------------------------------------------------------------ actors */
#define M_GONE d_step { if :: olock == _pid -> olock = 0 :: else fi; if :: rlock == _pid -> rlock = 0 :: else fi; \
                        if :: inl -> launching--; inl = false; orphan = orphan | unchecked; unchecked = 0 :: else fi }

proctype m_conductor() {
  ACTOR_LOCALS;
  byte kind = 1;
m_restart:
  outcome = O_NONE;
  deliver();
  goto m_done;
m_crashed:                                   /* its lock is stale: the next acquirer breaks it */
  skip;
  M_GONE;
  goto m_restart;                            /* the outbox delivers the event again */
m_done:
  actors--
}

proctype m_agent(byte me) {
  ACTOR_LOCALS;
  byte kind = 2;
end_wait:
  (agents & BIT(1));                         /* the agent of the first pane calls its tools */
  {
    skip;
m_restart:
    skip;
b_retry:
    acknowledge_dispatch();
    record_result();
b_done:
    goto m_done;
m_crashed:
    skip;
    M_GONE;
    goto m_restart                           /* the agent calls again */
  } unless { !(sups & BIT(1)) };             /* the broker is gone: so is the call, and the agent */
m_done:
  skip;
  M_GONE
}

proctype m_operator(byte ops, requests) {
  ACTOR_LOCALS;
  byte kind = 4;
  byte n = 0;
  do
  :: n < ops ->
     n++;
     if
     :: requests & 1 -> park()
     :: requests & 2 -> resume()
     :: requests & 4 -> stop()
     :: requests & 8 -> observe()
     fi;
     goto o_refused;
m_crashed:                                   /* a crashed request is over; the next one starts afresh */
o_refused:                                   /* (a refused request: the same clean-up) */
     skip;
     M_GONE
  :: else -> break
  od;
  actors--
}

proctype m_env() {
  bool tmux = TMUX_DIES, cancel = CANCEL;
end_env:
  do
  :: tmux -> tmux = false;                   /* the tmux server dies: every pane is gone, terminals hang up */
     d_step { pane = P_NONE; hup = hup | sups }
  :: d_step {                                /* dispatches.cancel (any non-terminal state): `dsp-cancel` */
       cancel && ST(DSP) != D_CANCELLED -> cancel = false;
       assert(nv[DSP] < NV);
       hop[DSP * NV + nv[DSP]] = OP_CANCEL + ST(DSP); hst[DSP * NV + nv[DSP]] = D_CANCELLED;
       hx[DSP * NV + nv[DSP]] = HX(DSP); nv[DSP]++
     }
  od
}

init {
  byte i;
  atomic {
    /* dispatches.accept: the accepted dispatch (version 0 here), its idle healthy worker, the event E */
    nv[DSP] = 1; hop[DSP * NV] = OP_ACCEPT; hst[DSP * NV] = D_ACCEPTED;
    nv[WKR] = 1; hop[WKR * NV] = OP_CREATE; hst[WKR * NV] = IDLE; hx[WKR * NV] = HEALTHY;
    if
    :: LAUNCHED ->                           /* deliver's _launch ran: spec, pane, registry, session, receipt */
       spec = true; pinc = 1; pane = P_LIVE; sups = BIT(1); pending = 1; registry = 1;
       nv[SES] = 1; hop[SES * NV] = OP_REG; hst[SES * NV] = S_RUNNING; rcpt = O_CREATED;
       run supervise(1)
    :: BEGUN ->                              /* deliver's _launch ran up to _register_pane, and it died */
       begun = true; spec = true; pinc = 1; pane = P_LIVE; sups = BIT(1); pending = 1; registry = 1;
       run supervise(1)
    :: else
    fi;
    bres[0] = R_COMPLETED;
    bres[1] = (SAME_RESULT -> R_COMPLETED : R_FAILED);
    actors = CONDUCTORS + (OPS > 0) + (OPS2 > 0);
    i = 0;
    do :: i < CONDUCTORS -> run m_conductor(); i++ :: else -> break od;
    i = 0;
    do :: i < BRIDGES -> run m_agent(i); i++ :: else -> break od;
    if :: OPS > 0 -> run m_operator(OPS, REQUESTS) :: else fi;
    if :: OPS2 > 0 -> run m_operator(OPS2, REQUESTS2) :: else fi;
    run m_env()
  }
  /* the end: conductors and operator are done, every pane's supervisor has read its spec */
  (actors == 0 && pending == 0);
  d_step {
    /* property: a delivery that says it launched (or left the activation pending) did launch (at most
       once: checked at every start), unless a stop killed its pane or discarded its spec before it was read,
       or its supervisor saw the stop, or saw its terminal hang up, or gave up waiting for the session while no
       launch was under way, and started nothing */
    assert((rcpt != O_CREATED && rcpt != O_REUSED && rcpt != O_PENDING) || starts >= 1 || killed != 0 || revoked ||
           refused || hung || timedout);
    assert(PANE_GONE_WHEN_STOPPED)           /* property: no pane outlives a stopped worker */
  }
}
