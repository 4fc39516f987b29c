import {
  AliasNode,
  AndNode,
  BinaryOperationNode,
  ColumnNode,
  IdentifierNode,
  InsertQueryNode,
  JoinNode,
  type KyselyPlugin,
  OnConflictNode,
  OnNode,
  type OperationNode,
  OperationNodeTransformer,
  OperatorNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PrimitiveValueListNode,
  type QueryResult,
  ReferenceNode,
  type RootOperationNode,
  SelectionNode,
  SelectQueryNode,
  TableNode,
  type UnknownRow,
  ValueListNode,
  ValueNode,
  ValuesNode,
  WhereNode,
} from "kysely";

/** The column naming the tenant a row belongs to, on every table in TENANT_TABLES (migration 0016). */
export const TENANT_COLUMN = "tenant_id";

/**
 * Every table the store and its features create (the kysely migration tables aside), each holding one
 * tenant's rows: the log's five, the audit read models, the hand-off queue, the pre-compaction
 * candidates and the mirror. Migration 0016 keys them by tenant; TenantScope confines queries to one.
 */
export const TENANT_TABLES: readonly string[] = [
  "events",
  "sessions",
  "idempotency_keys",
  "snapshots",
  "log_keys",
  "precompaction_candidates",
  "handoffs",
  "audit_checkpoints",
  "audit_sessions",
  "audit_compactions",
  "audit_failures",
  "audit_supersessions",
  "audit_replacements",
  "mirror_keys",
  "mirror_entries",
  "mirror_sessions",
];

const SCOPED = new Set(TENANT_TABLES);

/**
 * A kysely plugin confining every query built with kysely to one tenant, on both engines: a read, update
 * or delete of a tenant table (in FROM, a join, a subquery) gets `tenant_id = <tenant>` (a join in its ON,
 * so an outer join keeps its meaning); an insert writes the tenant's id and its ON CONFLICT target names
 * `tenant_id` (every key holds it). On PostgreSQL row-level security enforces the same rule (migration
 * 0016); this is what makes it hold on SQLite, and lets PostgreSQL use the keys. Raw SQL (`sql` templates,
 * the hand-written append) is not rewritten: it names the tenant itself.
 */
export class TenantScope implements KyselyPlugin {
  readonly #transformer: TenantScopeTransformer;

  /** The scope of `tenant` (a checked tenant id). */
  constructor(tenant: string) {
    this.#transformer = new TenantScopeTransformer(tenant);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node, args.queryId);
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}

/** The rewriting TenantScope applies, node by node, after kysely's own transform of the children. */
class TenantScopeTransformer extends OperationNodeTransformer {
  readonly #tenant: string;

  constructor(tenant: string) {
    super();
    this.#tenant = tenant;
  }

  protected override transformSelectQuery(node: SelectQueryNode, queryId?: PluginTransformQueryArgs["queryId"]) {
    const query = super.transformSelectQuery(node, queryId);
    return this.#confined(query, query.from?.froms ?? []);
  }

  protected override transformUpdateQuery(
    node: Parameters<OperationNodeTransformer["transformUpdateQuery"]>[0],
    queryId?: PluginTransformQueryArgs["queryId"],
  ) {
    const query = super.transformUpdateQuery(node, queryId);
    return this.#confined(query, [...(query.table === undefined ? [] : [query.table]), ...(query.from?.froms ?? [])]);
  }

  protected override transformDeleteQuery(
    node: Parameters<OperationNodeTransformer["transformDeleteQuery"]>[0],
    queryId?: PluginTransformQueryArgs["queryId"],
  ) {
    const query = super.transformDeleteQuery(node, queryId);
    return this.#confined(query, [...query.from.froms, ...(query.using?.tables ?? [])]);
  }

  protected override transformInsertQuery(node: InsertQueryNode, queryId?: PluginTransformQueryArgs["queryId"]) {
    const query = super.transformInsertQuery(node, queryId);
    if (query.into === undefined || !SCOPED.has(tableName(query.into)) || query.columns === undefined) return query;
    if (query.columns.some((c) => c.column.name === TENANT_COLUMN)) return query;
    return InsertQueryNode.cloneWith(query, {
      columns: [...query.columns, ColumnNode.create(TENANT_COLUMN)],
      ...(query.values === undefined ? {} : { values: this.#withTenantValue(query.values) }),
      ...(query.onConflict === undefined ? {} : { onConflict: this.#conflictOnTenant(query.onConflict) }),
    });
  }

  /** A query with the tenant's condition on each tenant table of `tables` (its WHERE) and of its joins (their ON). */
  #confined<Q extends { readonly where?: WhereNode; readonly joins?: readonly JoinNode[] }>(
    query: Q,
    tables: readonly OperationNode[],
  ): Q {
    const where = this.#scoped(query.where, tables);
    return {
      ...query,
      ...(where === undefined ? {} : { where }),
      ...(query.joins === undefined ? {} : { joins: query.joins.map((join) => this.#scopedJoin(join)) }),
    };
  }

  /** Insert values (VALUES rows or a SELECT) with the tenant's id appended to each row. */
  #withTenantValue(values: OperationNode): OperationNode {
    if (ValuesNode.is(values)) {
      return ValuesNode.create(
        values.values.map((row) =>
          PrimitiveValueListNode.is(row)
            ? PrimitiveValueListNode.create([...row.values, this.#tenant])
            : ValueListNode.create([...row.values, ValueNode.create(this.#tenant)]),
        ),
      );
    }
    if (SelectQueryNode.is(values)) {
      const tenant = AliasNode.create(ValueNode.create(this.#tenant), IdentifierNode.create(TENANT_COLUMN));
      return SelectQueryNode.cloneWithSelections(values, [SelectionNode.create(tenant)]);
    }
    throw new Error(`TenantScope: an insert from ${values.kind} is not supported`);
  }

  /** An ON CONFLICT target naming tenant_id too, as every key of a tenant table does. */
  #conflictOnTenant(conflict: OnConflictNode): OnConflictNode {
    if (conflict.columns === undefined) return conflict;
    return OnConflictNode.cloneWith(conflict, { columns: [...conflict.columns, ColumnNode.create(TENANT_COLUMN)] });
  }

  /** A join whose table is a tenant table, with the tenant's condition in its ON. */
  #scopedJoin(join: JoinNode): JoinNode {
    const condition = this.#condition(join.table);
    if (condition === undefined) return join;
    return join.on === undefined
      ? JoinNode.createWithOn(join.joinType, join.table, condition)
      : { ...join, on: OnNode.create(AndNode.create(join.on.on, condition)) };
  }

  /** `where` and the tenant's condition on every tenant table of `tables`. */
  #scoped(where: WhereNode | undefined, tables: readonly OperationNode[]): WhereNode | undefined {
    let scoped = where;
    for (const table of tables) {
      const condition = this.#condition(table);
      if (condition === undefined) continue;
      scoped =
        scoped === undefined ? WhereNode.create(condition) : WhereNode.cloneWithOperation(scoped, "And", condition);
    }
    return scoped;
  }

  /** `<table or alias>.tenant_id = <tenant>` for a tenant table, else undefined (a CTE, a derived table). */
  #condition(table: OperationNode): OperationNode | undefined {
    let name: string;
    let reference: string;
    if (TableNode.is(table)) {
      name = tableName(table);
      reference = name;
    } else if (AliasNode.is(table) && TableNode.is(table.node) && IdentifierNode.is(table.alias)) {
      name = tableName(table.node);
      reference = table.alias.name;
    } else {
      return undefined;
    }
    if (!SCOPED.has(name)) return undefined;
    return BinaryOperationNode.create(
      ReferenceNode.create(ColumnNode.create(TENANT_COLUMN), TableNode.create(reference)),
      OperatorNode.create("="),
      ValueNode.create(this.#tenant),
    );
  }
}

/** The name of a table node (schemas are not used by the store). */
function tableName(table: TableNode): string {
  return table.table.identifier.name;
}
