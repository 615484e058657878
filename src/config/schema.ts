// The config file's JSON Schema: the single place where keys, types and defaults live.
// ajv fills the defaults (useDefaults) so the rest of the code sees a complete Config.

const duration = {
  description: 'seconds, or a number with a unit: 30s, 5m, 2h, 8d, 1w, 1y',
  anyOf: [
    { type: 'integer', minimum: 1 },
    { type: 'string', pattern: '^[0-9]+(s|m|h|d|w|y)$' },
  ],
} as const;

const rateBucket = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 0, description: 'requests per interval; 0 turns the bucket off' },
    interval_seconds: { type: 'integer', minimum: 1 },
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
        listen: { type: 'string', pattern: '^(\\[[0-9a-fA-F:.]+\\]|[^:\\s]+):[0-9]{1,5}$', default: '127.0.0.1:8443' },
        trust_proxy: { type: 'boolean', default: false },
        external_url: { type: ['string', 'null'], default: null },
        headers_timeout_ms: { type: 'integer', minimum: 1000, maximum: 10000, default: 10000 },
        request_timeout_ms: { type: 'integer', minimum: 1000, maximum: 20000, default: 20000 },
        max_connections: { type: 'integer', minimum: 1, default: 1024 },
        shutdown_timeout_ms: { type: 'integer', minimum: 100, maximum: 60000, default: 10000 },
      },
    },
    data_dir: { type: 'string', minLength: 1, default: './data' },
    tls: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        cert_file: { type: ['string', 'null'], default: null },
        key_file: { type: ['string', 'null'], default: null },
        min_version: { enum: ['TLSv1.2', 'TLSv1.3'], default: 'TLSv1.2' },
      },
    },
    accounts: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['email', 'token_sha256'],
        properties: {
          email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$', maxLength: 254 },
          token_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
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
        body_bytes: { type: 'integer', minimum: 1024, default: 5242880 },
        max_body_depth: { type: 'integer', minimum: 2, maximum: 64, default: 12 },
        tags_per_measurement: { type: 'integer', minimum: 1, maximum: 50, default: 50 },
        batch_job_threshold: {
          type: 'integer', minimum: 1, default: 50,
          description: 'batch metric updates/deletes touching more metrics than this run as a background job (202)',
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
        sync: { type: 'boolean', default: true, description: 'fsync every acknowledged write (group-committed)' },
        min_free_disk_bytes: { type: 'integer', minimum: 0, default: 1073741824 },
        retention: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            raw: { ...duration, default: '2d' },
            '60': { ...duration, default: '8d' },
            '900': { ...duration, default: '32d' },
            '3600': { ...duration, default: '365d' },
          },
        },
        retention_schedule: { type: 'string', default: '17 3 * * *', description: 'cron expression for expiry + compaction' },
        checkpoint: {
          type: 'object',
          additionalProperties: false,
          default: {},
          description: 'when the engine writes sealed chunks and head snapshots and trims its write-ahead log',
          properties: {
            interval_seconds: { type: 'integer', minimum: 1, maximum: 3600, default: 60 },
            wal_bytes: { type: 'integer', minimum: 65536, default: 67108864 },
            seal_idle_seconds: { type: 'integer', minimum: 1, maximum: 86400, default: 300 },
          },
        },
      },
    },
    log: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        level: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
      },
    },
  },
} as const;
