import type { ScrapeJob, ScrapeSection } from '../scrape/config.js';
// The shape of a loaded, defaulted, path-resolved configuration: the only config type
// the rest of the code sees.

export type Role = 'admin' | 'recorder' | 'viewer';

export interface ConfigAccount {
  email: string;
  token_sha256: string;
  role: Role;
  name: string;
}

export interface RateBucketConfig {
  /** requests per interval; 0 = unlimited */
  limit: number;
  interval_seconds: number;
}

export interface Config {
  /** absolute path of the file this came from, or null for the embedded default */
  source: string | null;
  http: {
    listen: string;
    host: string;
    port: number;
    /** true: every peer; false: none; else the addresses and CIDR blocks of the proxies */
    trust_proxy: boolean | string[];
    external_url: string | null;
    headers_timeout_ms: number;
    request_timeout_ms: number;
    max_connections: number;
    shutdown_timeout_ms: number;
    /** worker threads that scan large tagged submissions; 0: on the request thread */
    parse_threads: number;
  };
  data_dir: string;
  tls: { cert_file: string | null; key_file: string | null; min_version: 'TLSv1.2' | 'TLSv1.3' };
  accounts: ConfigAccount[];
  limits: {
    body_bytes: number;
    max_body_depth: number;
    tags_per_measurement: number;
    /** new series an account may create in any hour; 0: no limit */
    new_series_per_hour: number;
    batch_job_threshold: number;
    /** measurements one query answer may hold */
    answer_measurements: number;
    rate_limit: { std: RateBucketConfig; agg: RateBucketConfig };
    /** how many of each resource one account may hold (domain/account-limits.ts) */
    per_account: { spaces: number; charts_per_space: number; alerts: number; services: number; annotation_streams: number; composite_metrics: number };
    /** reads of more series than one read batch: at most `concurrency` at once */
    wide_reads: { concurrency: number; queue_timeout_ms: number };
  };
  storage: {
    sync: boolean;
    /** null: 5 % of the filesystem, at most 1 GiB */
    min_free_disk_bytes: number | null;
    /** retention per tier in seconds; keys 'raw', '60', '900', '3600' */
    retention: { raw: number; '60': number; '900': number; '3600': number };
    retention_schedule: string;
    /** engine checkpoints: sealed chunks + head snapshots written, WAL trimmed */
    checkpoint: { interval_seconds: number; wal_bytes: number; seal_idle_seconds: number; head_max_age_seconds: number };
  };
  alerts: {
    check_schedule: string;
    recently_cleared_seconds: number;
  };
  notifications: {
    /** absolute paths of extra plugin folders */
    plugin_dirs: string[];
    timeout_ms: number;
    retry_initial_ms: number;
    /** rules for notification URLs */
    outbound: { allow: string[]; deny: string[] };
    /** the mail plugin's SMTP server */
    mail: { host: string | null; port: number; secure: boolean; starttls: 'required' | 'opportunistic' | 'never'; user: string | null; password: string | null; from: string; ca_file: string | null };
    /** seconds */
    retry_max_age: number;
  };
  /** the `scrape` section as written (defaults filled) */
  scrape: ScrapeSection;
  /** its jobs, with the Prometheus files of scrape.config_files read and every default applied */
  scrapeJobs: ScrapeJob[];
  log: { level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' };
}
