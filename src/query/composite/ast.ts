// The two trees of a composite expression. `Syntax` is what the parser reads: calls,
// sets, maps, strings and numbers, each with the 1-based column it starts at. `Expr` is
// what the checker makes of it: one node per function with its options validated and
// defaulted, so the evaluator never looks at a string option again.
import type { ReadFunction, TagFilter } from './source.js';

export interface StringNode { kind: 'string'; value: string; column: number }
export interface NumberNode { kind: 'number'; value: number; text: string; column: number }
export interface MapEntry { key: string; keyColumn: number; value: StringNode | NumberNode }
export interface MapNode { kind: 'map'; entries: MapEntry[]; column: number }
export interface SetNode { kind: 'set'; items: Syntax[]; column: number }
export interface CallNode { kind: 'call'; name: string; args: Syntax[]; column: number }
export type Syntax = StringNode | NumberNode | MapNode | SetNode | CallNode;

/** Functions that reduce a whole series to one number (top, bottom, filter). */
export type ReduceFunction = 'mean' | 'sum' | 'min' | 'max';
export type WindowFunction = ReduceFunction | 'median';

export interface SeriesExpr {
  kind: 'series';
  /** lower-cased; may contain `*` */
  metric: string;
  /** `"%"`: the caller's dynamic tags, every series when it gives none */
  tags: TagFilter | 'dynamic';
  fn: ReadFunction;
  /** `period` option in seconds, null when not given */
  period: number | null;
  /** false: ignores every enclosing group_by */
  group: boolean;
}
export interface SetExpr { kind: 'set'; items: Expr[] }
/** Pointwise across the set: one output series. */
export interface AggregateExpr { kind: 'aggregate'; fn: 'sum' | 'mean' | 'min' | 'max' | 'multiply'; arg: Expr }
/** Exactly two series in, else the empty set. */
export interface PairExpr { kind: 'pair'; fn: 'divide' | 'subtract'; arg: Expr }
export interface DeriveExpr { kind: 'derive'; detectReset: boolean; arg: Expr }
export interface IntegrateExpr { kind: 'integrate'; arg: Expr }
export interface RateExpr { kind: 'rate'; duration: number; arg: Expr }
export interface ScaleExpr { kind: 'scale'; factor: number; arg: Expr }
/** window() and moving_average() */
export interface WindowExpr { kind: 'window'; size: number; fn: WindowFunction; arg: Expr }
/** Seconds back in time, in the order written; negative is forward (`"+1d"`). */
export interface TimeshiftExpr { kind: 'timeshift'; offsets: number[]; arg: Expr }
/** fill() and zero_fill() */
export interface FillExpr { kind: 'fill'; value: number | 'last'; arg: Expr }
/** top() and bottom() */
export interface RankExpr { kind: 'rank'; order: 'top' | 'bottom'; count: number; fn: ReduceFunction; arg: Expr }
export interface FilterExpr {
  kind: 'filter';
  fn: ReduceFunction;
  gt: number | null;
  gte: number | null;
  lt: number | null;
  lte: number | null;
  arg: Expr;
}
export interface GroupByExpr { kind: 'group_by'; tags: string[]; arg: Expr }

export type Expr =
  | SeriesExpr | SetExpr | AggregateExpr | PairExpr | DeriveExpr | IntegrateExpr | RateExpr | ScaleExpr
  | WindowExpr | TimeshiftExpr | FillExpr | RankExpr | FilterExpr | GroupByExpr;
