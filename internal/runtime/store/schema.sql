-- State of the management API, in ClickHouse so that several collector
-- replicas share it and there is one database to back up. Rows are
-- versioned (ReplacingMergeTree) and read with FINAL; a delete is a newer
-- version with deleted = 1.
CREATE TABLE IF NOT EXISTS {db}.api_teams (
    id String,
    name String,
    version UInt64,
    deleted UInt8 DEFAULT 0,
    created_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(version) ORDER BY id;

CREATE TABLE IF NOT EXISTS {db}.api_keys (
    hash String,            -- sha256 of the key, hex; the key itself is never stored
    team_id String,
    kind LowCardinality(String), -- personal | ingestion | managed
    key_id String,          -- public id (managed keys: the Basic user name)
    version UInt64,
    deleted UInt8 DEFAULT 0,
    created_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(version) ORDER BY hash;

CREATE TABLE IF NOT EXISTS {db}.api_resources (
    team_id String,
    kind LowCardinality(String), -- dashboard | alert | source | webhook
    id String,
    doc String,             -- the resource as JSON
    -- Lists size their pages by it: length(doc) would read every document.
    doc_bytes UInt64 MATERIALIZED length(doc),
    version UInt64,
    deleted UInt8 DEFAULT 0,
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(version) ORDER BY (team_id, kind, id);

-- State written before doc_bytes existed.
ALTER TABLE {db}.api_resources ADD COLUMN IF NOT EXISTS doc_bytes UInt64 MATERIALIZED length(doc) AFTER doc;

-- One row per alert evaluation (and its delivery), readable through the
-- API. The idempotency key is the alert id and window start: replicas
-- evaluating the same window write the same key.
CREATE TABLE IF NOT EXISTS {db}.api_alert_history (
    team_id String,
    alert_id String,
    window_start DateTime64(3, 'UTC'),
    window_end DateTime64(3, 'UTC'),
    state LowCardinality(String),
    previous_state LowCardinality(String),
    value Nullable(Float64),
    group_key String,
    notified UInt8,
    delivery_attempts UInt32,
    delivery_error String,
    idempotency_key String,
    evaluated_at DateTime64(3, 'UTC')
) ENGINE = MergeTree ORDER BY (team_id, alert_id, window_start);

-- Keys the UI shows their owner (HyperDX shows them at any time): the key
-- sealed with the data directory's secret (AES-GCM); user_id names the
-- account a personal key belongs to ('' for the bootstrap key until the
-- first account takes it). Keys from configuration have no seal.
ALTER TABLE {db}.api_keys ADD COLUMN IF NOT EXISTS user_id String DEFAULT '';
ALTER TABLE {db}.api_keys ADD COLUMN IF NOT EXISTS sealed String DEFAULT '';

-- Accounts of the web UI. The first one owns the default team; the others
-- join through an invitation.
CREATE TABLE IF NOT EXISTS {db}.api_users (
    id String,
    team_id String,
    email String,           -- lower-cased
    password_hash String,   -- argon2id, PHC string form
    role LowCardinality(String), -- owner | member
    version UInt64,
    deleted UInt8 DEFAULT 0,
    created_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(version) ORDER BY id;

-- Server-side sessions, shared by every replica. Only the cookie's hash is
-- stored; seen_at is rewritten at most once a minute for the idle timeout.
CREATE TABLE IF NOT EXISTS {db}.api_sessions (
    hash String,
    user_id String,
    team_id String,
    created_at DateTime64(3, 'UTC'),
    seen_at DateTime64(3, 'UTC'),
    expires_at DateTime64(3, 'UTC'),
    version UInt64,
    deleted UInt8 DEFAULT 0
) ENGINE = ReplacingMergeTree(version) ORDER BY hash
TTL toDateTime(expires_at) + INTERVAL 1 DAY;

-- Invitation links: the token's hash; id is the public handle a member
-- revokes it by.
CREATE TABLE IF NOT EXISTS {db}.api_invitations (
    hash String,
    id String,
    team_id String,
    email String,
    created_by String,
    created_at DateTime64(3, 'UTC'),
    expires_at DateTime64(3, 'UTC'),
    version UInt64,
    deleted UInt8 DEFAULT 0
) ENGINE = ReplacingMergeTree(version) ORDER BY hash;

-- Which replica evaluates an alert's window: each replica that finds the
-- window unevaluated writes a claim, then reads the window's claims; the
-- earliest (by the server's clock, then replica id) evaluates and
-- notifies, the others leave it. Claims are only needed while a window is
-- fresh.
CREATE TABLE IF NOT EXISTS {db}.api_alert_claims (
    alert_id String,
    window_start DateTime64(3, 'UTC'),
    replica String,
    claimed_at DateTime64(9, 'UTC') DEFAULT now64(9, 'UTC')
) ENGINE = MergeTree ORDER BY (alert_id, window_start)
TTL toDateTime(claimed_at) + INTERVAL 2 DAY;
