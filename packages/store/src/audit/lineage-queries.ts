import { NotFoundError } from "@palimpsest/core";
import { type Kysely, sql } from "kysely";
import { toIso } from "../engine/row-mapping.ts";
import type { AuditDatabase } from "./audit-source.ts";

/** One session in a lineage answer: its links, and its distance from the session asked about. */
export interface LineageNode {
  sessionId: string;
  /** Null while the session's start has not been projected yet. */
  startedAt: string | null;
  model: string | null;
  parentSessionId: string | null;
  /** How it relates to its parent: "handoff", "subagent" or "fork". */
  relation: string | null;
  /** A fork's branch point: the parent's seq its view was copied at (null for other sessions). */
  parentAtSeq: number | null;
  handedOffTo: string | null;
  /** Steps from the session asked about (1 = parent, or child). */
  depth: number;
}

/** Where a session sits among the sessions it came from and led to. */
export interface Lineage {
  session: LineageNode;
  /** Parents up to the root, nearest first. */
  ancestors: LineageNode[];
  /** Children, their children and so on (hand-off successors and subagents), by depth then start. */
  descendants: LineageNode[];
  /** The session the hand-off chain from this one ends at (itself when it was never handed off). */
  tip: string;
  /** The sessions of that chain, this one first, the tip last. */
  chain: string[];
}

/** Links followed at most this deep, so a corrupted cycle ends instead of looping. */
const MAX_DEPTH = 10_000;

type NodeRow = {
  session_id: string;
  started_at: Date | string | null;
  model: string | null;
  parent_session_id: string | null;
  relation: string | null;
  parent_at_seq: number | null;
  handed_off_to: string | null;
  depth: number;
};

const COLUMNS = sql`s.session_id, s.started_at, s.model, s.parent_session_id, s.relation, s.parent_at_seq, s.handed_off_to`;

/**
 * The lineage of a session, answered in SQL over the audit read model by recursive queries: ancestors
 * through parent links, descendants through children, and the hand-off chain to its tip, among the
 * sessions of `tenant` (the store's: raw SQL names it). NotFoundError when the read model has no such session.
 */
export async function lineage(db: Kysely<AuditDatabase>, tenant: string, sessionId: string): Promise<Lineage> {
  const self = await db.selectFrom("audit_sessions").selectAll().where("session_id", "=", sessionId).executeTakeFirst();
  if (self === undefined) throw new NotFoundError("session", sessionId);

  const ancestors = await sql<NodeRow>`
    WITH RECURSIVE up(session_id, depth) AS (
      SELECT parent_session_id, 1 FROM audit_sessions
      WHERE session_id = ${sessionId} AND tenant_id = ${tenant} AND parent_session_id IS NOT NULL
      UNION ALL
      SELECT p.parent_session_id, up.depth + 1 FROM up
      JOIN audit_sessions p ON p.session_id = up.session_id AND p.tenant_id = ${tenant}
      WHERE p.parent_session_id IS NOT NULL AND up.depth < ${MAX_DEPTH}
    )
    SELECT ${COLUMNS}, up.depth FROM up JOIN audit_sessions s ON s.session_id = up.session_id AND s.tenant_id = ${tenant}
    ORDER BY up.depth`.execute(db);

  const descendants = await sql<NodeRow>`
    WITH RECURSIVE down(session_id, depth) AS (
      SELECT session_id, 1 FROM audit_sessions WHERE parent_session_id = ${sessionId} AND tenant_id = ${tenant}
      UNION ALL
      SELECT c.session_id, down.depth + 1 FROM down
      JOIN audit_sessions c ON c.parent_session_id = down.session_id AND c.tenant_id = ${tenant}
      WHERE down.depth < ${MAX_DEPTH}
    )
    SELECT ${COLUMNS}, down.depth FROM down
    JOIN audit_sessions s ON s.session_id = down.session_id AND s.tenant_id = ${tenant}
    ORDER BY down.depth, s.started_at, s.session_id`.execute(db);

  const chain = await sql<{ session_id: string; depth: number }>`
    WITH RECURSIVE chain(session_id, next_id, depth) AS (
      SELECT session_id, handed_off_to, 0 FROM audit_sessions WHERE session_id = ${sessionId} AND tenant_id = ${tenant}
      UNION ALL
      SELECT n.session_id, n.handed_off_to, chain.depth + 1 FROM chain
      JOIN audit_sessions n ON n.session_id = chain.next_id AND n.tenant_id = ${tenant}
      WHERE chain.depth < ${MAX_DEPTH}
    )
    SELECT session_id, depth FROM chain ORDER BY depth`.execute(db);

  const ids = chain.rows.map((r) => r.session_id);
  return {
    session: toNode({ ...self, depth: 0 }),
    ancestors: ancestors.rows.map(toNode),
    descendants: descendants.rows.map(toNode),
    tip: ids.at(-1) ?? sessionId,
    chain: ids,
  };
}

function toNode(row: NodeRow): LineageNode {
  return {
    sessionId: row.session_id,
    startedAt: row.started_at === null ? null : toIso(row.started_at),
    model: row.model,
    parentSessionId: row.parent_session_id,
    relation: row.relation,
    parentAtSeq: row.parent_at_seq === null ? null : Number(row.parent_at_seq),
    handedOffTo: row.handed_off_to,
    depth: Number(row.depth),
  };
}

/** One lineage tree: its root session, how many sessions it holds, and where its hand-off chain ends. */
export interface LineageTree {
  rootSessionId: string;
  startedAt: string | null;
  model: string | null;
  /** Sessions in the tree, the root included. */
  sessions: number;
  /** The longest path from the root (0 for a session alone). */
  depth: number;
  /** The session the root's hand-off chain ends at. */
  tip: string;
}

/** Every lineage tree (a session without a parent and everything descended from it) of `tenant`, oldest root first. */
export async function lineageTrees(db: Kysely<AuditDatabase>, tenant: string, limit?: number): Promise<LineageTree[]> {
  const rows = await sql<{
    root_id: string;
    started_at: Date | string | null;
    model: string | null;
    sessions: number | string;
    depth: number | string;
    tip: string;
  }>`
    WITH RECURSIVE tree(root_id, session_id, depth) AS (
      SELECT session_id, session_id, 0 FROM audit_sessions WHERE parent_session_id IS NULL AND tenant_id = ${tenant}
      UNION ALL
      SELECT tree.root_id, c.session_id, tree.depth + 1 FROM tree
      JOIN audit_sessions c ON c.parent_session_id = tree.session_id AND c.tenant_id = ${tenant}
      WHERE tree.depth < ${MAX_DEPTH}
    ),
    chain(root_id, session_id, next_id, depth) AS (
      SELECT session_id, session_id, handed_off_to, 0 FROM audit_sessions WHERE parent_session_id IS NULL AND tenant_id = ${tenant}
      UNION ALL
      SELECT chain.root_id, n.session_id, n.handed_off_to, chain.depth + 1 FROM chain
      JOIN audit_sessions n ON n.session_id = chain.next_id AND n.tenant_id = ${tenant}
      WHERE chain.depth < ${MAX_DEPTH}
    ),
    sizes AS (SELECT root_id, count(*) AS sessions, max(depth) AS depth FROM tree GROUP BY root_id),
    tips AS (
      SELECT root_id, session_id AS tip FROM chain c
      WHERE depth = (SELECT max(depth) FROM chain d WHERE d.root_id = c.root_id)
    )
    SELECT s.session_id AS root_id, s.started_at, s.model, sizes.sessions, sizes.depth, tips.tip
    FROM audit_sessions s JOIN sizes ON sizes.root_id = s.session_id JOIN tips ON tips.root_id = s.session_id
    WHERE s.tenant_id = ${tenant}
    ORDER BY s.started_at, s.session_id
    ${limit === undefined ? sql`` : sql`LIMIT ${limit}`}`.execute(db);
  return rows.rows.map((r) => ({
    rootSessionId: r.root_id,
    startedAt: r.started_at === null ? null : toIso(r.started_at),
    model: r.model,
    sessions: Number(r.sessions),
    depth: Number(r.depth),
    tip: r.tip,
  }));
}
