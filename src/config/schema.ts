// The config file's JSON Schema: the single place where keys, types and defaults live.
// ajv fills the defaults (useDefaults) so the rest of the code sees a complete Config.
//
// Every leaf key (and every list taken whole, like `accounts`) carries `reload`: 'live'
// when SIGHUP applies it, 'restart' when the running value stays until a restart. The
// reload code reads the marks (config/reload-marks.ts) and a test fails on a key without
// one, so a new key cannot be forgotten.

import { scrapeSchema } from '../scrape/config.js';

const duration = {
  description: 'seconds, or a number with a unit: 30s, 5m, 2h, 8d, 1w, 1y',
  anyOf: [
    { type: 'integer', minimum: 1 },
    { type: 'string', pattern: '^[0-9]+(s|m|h|d|w|y)$' },
  ],
} as const;

/** bytes: an integer, or a string with a unit that the loader turns into one first */
const size = { type: ['integer', 'string'], pattern: '^\\s*[0-9]+(\\.[0-9]+)?\\s*([kKmMgGtT][iI]?[bB]|[bB])\\s*$', unit: 'bytes', description: 'bytes, or a size with a unit: 512KiB, 5MB, 1GiB (KB, MB, GB are 1000-based; KiB, MiB, GiB 1024-based)' } as const;

const rateBucket = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 0, description: 'requests per interval; 0 turns the bucket off', reload: 'live' },
    interval_seconds: { type: 'integer', minimum: 1, reload: 'live' },
  },
  default: {},
} as const;

export const configSchema = {
  $id: 'https://gaugeway.invalid/config.schema.json',
  type: 'object',
  additionalProperties: false,
  properties: {
    http: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        listen: {
          type: 'string', pattern: '^(\\[[0-9a-fA-F:.]+\\]|[^:\\s]+):[0-9]{1,5}$', default: '127.0.0.1:8443', reload: 'restart',
          invalid: 'must be HOST:PORT, such as 127.0.0.1:8443, 0.0.0.0:8443 or [::1]:8443',
        },
        trust_proxy: {
          anyOf: [{ type: 'boolean' }, { type: 'array', maxItems: 256, items: { type: 'string', maxLength: 64 } }],
          default: false, reload: 'live', invalid: 'must be true, false or a list of IP addresses and CIDR blocks',
          description: 'true, false, or the IP addresses and CIDR blocks of the proxies whose X-Forwarded-Proto counts',
        },
        external_url: {
          type: ['string', 'null'], pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$', default: null, reload: 'live',
          invalid: 'must be an http or https URL without query or fragment, such as https://metrics.example.com/gw',
          description: 'the public base URL (scheme, host, optional path) that Location headers and links are built from',
        },
        headers_timeout_ms: { type: 'integer', minimum: 1000, maximum: 10000, default: 10000, reload: 'live' },
        request_timeout_ms: { type: 'integer', minimum: 1000, maximum: 20000, default: 20000, reload: 'live' },
        max_connections: { type: 'integer', minimum: 1, default: 1024, reload: 'live' },
        shutdown_timeout_ms: { type: 'integer', minimum: 100, maximum: 60000, default: 10000, reload: 'live' },
        parse_threads: {
          type: 'integer', minimum: 0, maximum: 16, default: 1, reload: 'restart',
          description: 'threads that parse large POST /v1/measurements bodies beside the request thread; 0: parse on the request thread',
        },
      },
    },
    data_dir: { type: 'string', minLength: 1, default: './data', reload: 'restart' },
    tls: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        cert_file: { type: ['string', 'null'], default: null, reload: 'live' },
        key_file: { type: ['string', 'null'], default: null, reload: 'live' },
        min_version: { enum: ['TLSv1.2', 'TLSv1.3'], default: 'TLSv1.2', reload: 'live' },
      },
    },
    accounts: {
      type: 'array',
      default: [],
      reload: 'live',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['email', 'token_sha256'],
        properties: {
          // as src/auth/accounts.ts checks it: no ':' (Basic auth ends the user there), no control characters
          email: {
            type: 'string', pattern: '^[^@\\s:\\p{Cc}]+@[^@\\s:\\p{Cc}]+$', maxLength: 254,
            invalid: 'must be an e-mail address (name@domain without spaces, ":" or control characters)',
          },
          token_sha256: {
            type: 'string', pattern: '^[0-9a-f]{64}$',
            invalid: 'must be the token\'s SHA-256, 64 lower-case hex digits: printf %s "$TOKEN" | sha256sum',
          },
          role: { enum: ['admin', 'recorder', 'viewer'], default: 'admin' },
          name: { type: 'string', minLength: 1, maxLength: 64, default: 'config' },
        },
      },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        body_bytes: { ...size, minimum: 1024, default: 5242880, reload: 'restart' },
        max_body_depth: { type: 'integer', minimum: 2, maximum: 64, default: 12, reload: 'restart' },
        tags_per_measurement: { type: 'integer', minimum: 1, maximum: 50, default: 50, reload: 'live' },
        new_series_per_hour: {
          type: 'integer', minimum: 0, default: 40000, reload: 'live',
          description: 'new series (tag sets) each account may create in any hour; 0: no limit',
        },
        batch_job_threshold: {
          type: 'integer', minimum: 1, default: 50, reload: 'live',
          description: 'batch metric updates/deletes touching more metrics than this run as a background job (202)',
        },
        answer_measurements: {
          type: 'integer', minimum: 1000, default: 1000000, reload: 'live',
          description: 'measurements (source-based: records) one query answer may hold over all its series; a query past it is a 400',
        },
        per_account: {
          type: 'object',
          additionalProperties: false,
          default: {},
          description: 'how many of each resource one account may hold; a create past it is a 403 that says so',
          properties: {
            spaces: { type: 'integer', minimum: 1, default: 1000, reload: 'live' },
            charts_per_space: { type: 'integer', minimum: 1, default: 500, reload: 'live' },
            alerts: { type: 'integer', minimum: 1, default: 1000, reload: 'live' },
            services: { type: 'integer', minimum: 1, default: 100, reload: 'live' },
            annotation_streams: { type: 'integer', minimum: 1, default: 1000, reload: 'live' },
            composite_metrics: { type: 'integer', minimum: 1, default: 1000, reload: 'live' },
          },
        },
        wide_reads: {
          type: 'object',
          additionalProperties: false,
          default: {},
          description: 'queries over more than 512 series: how many run at once, and how long one waits its turn before it is refused (503)',
          properties: {
            concurrency: { type: 'integer', minimum: 1, default: 3, reload: 'live' },
            // setTimeout's longest delay: a longer one fires at once
            queue_timeout_ms: { type: 'integer', minimum: 0, maximum: 2147483647, default: 10000, reload: 'live' },
          },
        },
        rate_limit: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            std: { ...rateBucket, properties: { limit: { ...rateBucket.properties.limit, default: 6000 }, interval_seconds: { ...rateBucket.properties.interval_seconds, default: 60 } } },
            agg: { ...rateBucket, properties: { limit: { ...rateBucket.properties.limit, default: 60000 }, interval_seconds: { ...rateBucket.properties.interval_seconds, default: 60 } } },
          },
        },
      },
    },
    storage: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        sync: { type: 'boolean', default: true, description: 'fsync every acknowledged write (group-committed)', reload: 'restart' },
        min_free_disk_bytes: {
          ...size, type: ['integer', 'string', 'null'], minimum: 0, default: null, reload: 'live',
          description: 'writes are refused (507) below this much free space; null: 5 % of the filesystem, at most 1 GiB',
        },
        retention: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            raw: { ...duration, default: '2d', reload: 'live' },
            '60': { ...duration, default: '8d', reload: 'live' },
            '900': { ...duration, default: '32d', reload: 'live' },
            '3600': { ...duration, default: '365d', reload: 'live' },
          },
        },
        retention_schedule: { type: 'string', default: '17 3 * * *', description: 'cron expression for expiry + compaction', reload: 'live' },
        checkpoint: {
          type: 'object',
          additionalProperties: false,
          default: {},
          description: 'when the engine writes sealed chunks and head snapshots and trims its write-ahead log',
          properties: {
            interval_seconds: { type: 'integer', minimum: 1, maximum: 3600, default: 60, reload: 'restart' },
            wal_bytes: { ...size, minimum: 65536, default: 67108864, reload: 'restart' },
            seal_idle_seconds: { type: 'integer', minimum: 1, maximum: 86400, default: 300, reload: 'restart' },
            head_max_age_seconds: { type: 'integer', minimum: 1, maximum: 86400, default: 1800, reload: 'restart' },
          },
        },
      },
    },
    alerts: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        check_schedule: {
          type: 'string', default: '*/15 * * * * *', reload: 'live',
          description: 'cron expression (with seconds) on which every active alert is evaluated; alerts on new data are evaluated sooner',
        },
        recently_cleared_seconds: {
          type: 'integer', minimum: 60, maximum: 2592000, default: 86400, reload: 'live',
          description: 'how long a cleared alert is listed as cleared by GET /v1/alerts/status',
        },
      },
    },
    notifications: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        plugin_dirs: {
          type: 'array', items: { type: 'string', minLength: 1 }, default: [], reload: 'restart',
          description: 'folders of notification plugins loaded besides the built-in plugins/ (one sub-folder a plugin)',
        },
        // at most 10 s (reliability.md rule 8): a hanging receiver holds up its service's later notifications that long
        timeout_ms: { type: 'integer', minimum: 100, maximum: 10000, default: 10000, reload: 'live', description: 'a delivery that takes longer fails' },
        retry_initial_ms: {
          type: 'integer', minimum: 100, maximum: 60000, default: 1000, reload: 'live',
          description: 'a failed delivery is retried after about this long, each later retry twice as long (jittered, at most 60 seconds)',
        },
        outbound: {
          type: 'object', additionalProperties: false, default: {},
          description: 'where notifications may be sent, besides the default refusal of link-local and cloud metadata addresses',
          properties: {
            allow: { type: 'array', items: { type: 'string' }, default: [], reload: 'live', description: 'addresses, CIDR blocks, host names (*.example.com) always allowed' },
            deny: { type: 'array', items: { type: 'string' }, default: [], reload: 'live', description: 'addresses, CIDR blocks, host names never sent to' },
          },
        },
        mail: {
          type: 'object', additionalProperties: false, default: {},
          description: 'the SMTP server the mail plugin sends through',
          properties: {
            host: { type: ['string', 'null'], default: null, reload: 'live', description: 'SMTP server; null: mail services fail with "no SMTP server is configured"' },
            port: { type: 'integer', minimum: 1, maximum: 65535, default: 587, reload: 'live' },
            secure: { type: 'boolean', default: false, reload: 'live', description: 'TLS from the first byte (implicit TLS, usually port 465)' },
            starttls: { enum: ['required', 'opportunistic', 'never'], default: 'required', reload: 'live', description: 'upgrade a plain connection with STARTTLS' },
            user: { type: ['string', 'null'], default: null, reload: 'live' },
            password: { type: ['string', 'null'], default: null, reload: 'live', description: 'use ${ENV_VAR} rather than the password itself' },
            from: { type: 'string', minLength: 3, default: 'Gaugeway <gaugeway@localhost>', reload: 'live' },
            ca_file: { type: ['string', 'null'], default: null, reload: 'live', description: 'PEM file of the CA that signed the SMTP server certificate (besides the system CAs)' },
          },
        },
        retry_max_age: { ...duration, default: '1d', reload: 'live', description: 'a notification still failing this long after it was due is dropped (and recorded as failed)' },
      },
    },
    // Prometheus's own syntax (docs/scrape.md); a reload re-reads it and the files it names
    scrape: { ...scrapeSchema, reload: 'live' },
    log: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        level: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info', reload: 'live' },
      },
    },
  },
} as const;
