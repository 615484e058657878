// How far ahead of the server clock a measurement may lie: the one bound that both the
// write path (what it accepts) and the read path (where data can exist) depend on.

/** Accepted up to this far ahead of the server clock (senders' clock skew). */
export const FUTURE_SLACK_SECONDS = 3600;
