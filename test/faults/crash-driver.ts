import type { TestKeyring } from "../support/test-keyring.ts";
import { CRASH_HOOKS, type CrashConfig, type CrashEffect, type KillPlan, type RetryOutcome } from "./crash-protocol.ts";
import {
  type Acknowledged,
  acknowledged,
  addTo,
  type CheckedSessions,
  type CheckReport,
  checkDatabase,
  problemsOf,
} from "./fault-checks.ts";
import { Worker, type WorkerScript } from "./fault-process.ts";
import { FaultRandom } from "./fault-random.ts";
import type { ReportedError } from "./fault-workload.ts";
import { workerKeys } from "./worker-keys.ts";

/** Figures of a crash run, for the report and RELIABILITY.md. */
export interface CrashFigures {
  /** Kills that landed while the child was working, by where (a hook's name, or "delay"). */
  killsAt: Record<string, number>;
  /** Kills of a child that had finished its steps (a hook it never reached): not counted as kill points. */
  idleKills: number;
  retries: Record<RetryOutcome, number>;
  lost: number;
  duplicated: number;
  invalid: number;
  /** Mean ms from the config sent to the child's "ready" (store opened; its node start overlaps the last check). */
  startMs: number;
  /** Mean ms of one kill point: spawn, work, kill and the check from a fresh store. */
  perKillMs: number;
  sessions: number;
  events: number;
}

/** The outcome of one child: where it was killed, or that it finished; problems its check found. */
export interface KillOutcome {
  at: string;
  problems: string[];
}

/**
 * Runs crash children one after another on one database, each killed by its plan, and checks the
 * database after each kill from a fresh store; the next child continues (and retries the step cut short).
 */
export class CrashDriver {
  readonly acked: Acknowledged = acknowledged();
  readonly figures: CrashFigures = {
    killsAt: {},
    idleKills: 0,
    retries: { replayed: 0 },
    lost: 0,
    duplicated: 0,
    invalid: 0,
    startMs: 0,
    perKillMs: 0,
    sessions: 0,
    events: 0,
  };
  readonly #url: string;
  readonly #script: WorkerScript;
  readonly #seed: number;
  readonly #tag: string;
  readonly #keys: TestKeyring | undefined;
  readonly #random: FaultRandom;
  readonly #checked: CheckedSessions = new Map();
  #lanes: (string | null)[] = [null, null];
  /** The next child, started while the last one's database is checked (its start-up overlaps the check). */
  #spare: Worker | undefined;
  #nextStep = 1;
  #generation = 0;
  #startTotal = 0;
  #killTotal = 0;

  /** A driver of the run `seed` on `url`; `tag` names its sessions; `keys`, when given, encrypt content. */
  constructor(url: string, script: WorkerScript, seed: number, tag: string, keys?: TestKeyring) {
    this.#url = url;
    this.#keys = keys;
    this.#script = script;
    this.#seed = seed;
    this.#tag = tag;
    this.#random = new FaultRandom(seed);
  }

  /** The next seeded kill plan: half timed kills anywhere in a burst, half at a named hook. */
  nextPlan(): KillPlan {
    if (this.#random.next() < 0.5) return { kind: "delay", ms: this.#random.int(1, 40) };
    const hook = this.#random.pick(CRASH_HOOKS);
    return { kind: "hook", name: hook.name, park: hook.park, nth: this.#random.next() < 0.75 ? 1 : 2 };
  }

  /** Runs one child under `plan` (then checks the database); returns where it died and what the check found. */
  async killPoint(plan: KillPlan, options: { audit: boolean; steps?: number }): Promise<KillOutcome> {
    const started = performance.now();
    const config: CrashConfig = {
      url: this.#url,
      seed: this.#seed,
      tag: this.#tag,
      step: this.#nextStep,
      steps: plan.kind === "finish" ? 1 : (options.steps ?? 15),
      lanes: this.#lanes,
      generation: this.#generation++,
      plan,
      follow: this.#random.next() < 0.3,
      ...(this.#keys === undefined ? {} : { keys: workerKeys(this.#keys) }),
    };
    const worker = this.#spare ?? new Worker(this.#script);
    this.#spare = undefined;
    await worker.send(config);
    let killed = false;
    let at = "finished";
    const errors: ReportedError[] = [];
    const kill = () => {
      if (killed) return;
      killed = true;
      worker.child.kill("SIGKILL");
    };
    let timer: NodeJS.Timeout | undefined;
    for (let message = await worker.next(); message !== undefined; message = await worker.next()) {
      if (message.t === "ready") {
        this.#startTotal += performance.now() - started;
        if (plan.kind === "delay") {
          timer = setTimeout(() => {
            if (killed) return;
            at = "delay";
            kill();
          }, plan.ms);
        }
      } else if (message.t === "ack") this.#apply(message.step as number, message.effect as CrashEffect);
      else if (message.t === "done") this.#nextStep = Math.max(this.#nextStep, (message.step as number) + 1);
      else if (message.t === "retry") this.figures.retries[message.outcome as RetryOutcome]++;
      else if (message.t === "hook" && !killed) {
        at = String(message.name);
        if (plan.kind === "hook" && plan.park) kill();
        else setTimeout(kill, this.#random.int(0, 2));
      } else if (message.t === "idle" && !killed) {
        at = "idle";
        kill();
      } else if (message.t === "error") {
        errors.push(message.error as ReportedError);
        kill();
      }
    }
    clearTimeout(timer);
    const exit = await worker.exited;
    const problems = errors.map(
      (e) => `child error ${e.code}${e.rule ? ` ${e.rule}` : ""}: ${e.message}\n${e.stack ?? ""}`,
    );
    if (!killed && !(plan.kind === "finish" && exit.code === 0)) {
      problems.push(`child ended on its own (code ${exit.code}, signal ${exit.signal}): ${worker.stderr.slice(-2000)}`);
    }
    if (plan.kind !== "finish") this.#spare = new Worker(this.#script);
    const report = await checkDatabase(this.#url, this.acked, {
      audit: options.audit || at === "audit-write",
      settled: plan.kind === "finish",
      checked: this.#checked,
      ...(this.#keys === undefined ? {} : { keyring: this.#keys.keyring }),
    });
    this.#count(at, report);
    problems.push(...problemsOf(report));
    this.#killTotal += performance.now() - started;
    const kills = this.#generation;
    this.figures.startMs = Math.round(this.#startTotal / kills);
    this.figures.perKillMs = Math.round(this.#killTotal / kills);
    return { at, problems };
  }

  /** Kills the spare child, if one is waiting. */
  async dispose(): Promise<void> {
    await this.#spare?.kill();
    this.#spare = undefined;
  }

  /** Kill points so far: kills that landed while the child was working. */
  get killPoints(): number {
    return Object.values(this.figures.killsAt).reduce((n, k) => n + k, 0);
  }

  #count(at: string, report: CheckReport): void {
    if (at === "idle") this.figures.idleKills++;
    else if (at !== "finished") this.figures.killsAt[at] = (this.figures.killsAt[at] ?? 0) + 1;
    this.figures.lost += report.lost.length;
    this.figures.duplicated += report.duplicated.length;
    this.figures.invalid += report.invalid.length;
    this.figures.sessions = report.sessions;
    this.figures.events = report.events;
  }

  /** Records an acknowledgement: what it says is done must be in the log from now on. */
  #apply(step: number, effect: CrashEffect): void {
    const acked = this.acked;
    if (effect.messages !== undefined) addTo(acked.messages, effect.messages.session, effect.messages.ids);
    if (effect.turn !== undefined) addTo(acked.turns, effect.turn.session, [effect.turn.turnId]);
    for (const id of effect.compactions ?? []) acked.compactions.set(id, effect.session ?? "");
    if (effect.handoff !== undefined) acked.handoffs.set(effect.handoff.from, effect.handoff.to);
    if (effect.lane !== undefined) {
      this.#lanes = this.#lanes.map((s, i) => (i === effect.lane?.lane ? effect.lane.session : s));
      this.#nextStep = Math.max(this.#nextStep, step + 1); // the step is done: its retry would redo it elsewhere
    }
  }
}
