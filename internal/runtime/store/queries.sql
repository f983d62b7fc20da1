-- The statements of the API's state. Each starts at its `-- name:` line;
-- {db} is the state database, every value is a bound parameter (?).
-- Times are bound as milliseconds: clickhouse-go binds a time.Time to the
-- second.

-- name: insert_team
INSERT INTO {db}.api_teams (id, name, version, created_at) VALUES (?, ?, ?, now64(3))

-- name: team_by_id
SELECT id, name, created_at FROM {db}.api_teams FINAL WHERE id = ? AND deleted = 0

-- name: count_teams
SELECT count() FROM {db}.api_teams FINAL WHERE deleted = 0

-- name: insert_key
INSERT INTO {db}.api_keys (hash, team_id, kind, key_id, user_id, sealed, version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, now64(3))

-- name: delete_key
INSERT INTO {db}.api_keys (hash, team_id, kind, key_id, version, deleted, created_at) VALUES (?, ?, ?, ?, ?, 1, now64(3))

-- name: team_keys
SELECT hash, team_id, kind, key_id, user_id, sealed, created_at FROM {db}.api_keys FINAL
WHERE team_id = ? AND kind = ? AND deleted = 0 ORDER BY created_at, hash

-- name: keys_of_kind
SELECT hash, team_id, kind, key_id, user_id, sealed, created_at FROM {db}.api_keys FINAL WHERE kind = ? AND deleted = 0

-- name: insert_resource
-- Constants only (times as text in the columns' UTC): a document may
-- be up to 1 MiB, and the engine front reads Values data that long as
-- literals, never as expressions.
INSERT INTO {db}.api_resources (team_id, kind, id, doc, version, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?)

-- name: delete_resource
INSERT INTO {db}.api_resources (team_id, kind, id, doc, version, deleted, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, 1, fromUnixTimestamp64Milli(?, 'UTC'), now64(3))

-- name: get_resource
SELECT id, doc, created_at, updated_at FROM {db}.api_resources FINAL
WHERE team_id = ? AND kind = ? AND id = ? AND deleted = 0

-- name: count_resources
SELECT count() FROM {db}.api_resources FINAL WHERE team_id = ? AND kind = ? AND deleted = 0

-- name: team_resources
SELECT id, doc, created_at, updated_at FROM {db}.api_resources FINAL
WHERE team_id = ? AND kind = ? AND deleted = 0 ORDER BY created_at, id

-- name: page_resources
-- A page's ids and document sizes, without the documents: the engine
-- reads and sorts no documents, and the caller fetches them a few MiB at
-- a time.
SELECT id, doc_bytes FROM {db}.api_resources FINAL
WHERE team_id = ? AND kind = ? AND deleted = 0 ORDER BY created_at, id LIMIT ? OFFSET ?

-- name: resources_by_id
SELECT id, doc, created_at, updated_at FROM {db}.api_resources FINAL
WHERE team_id = ? AND kind = ? AND id IN ? AND deleted = 0

-- name: all_resources
SELECT team_id, id, doc, created_at, updated_at FROM {db}.api_resources FINAL
WHERE kind = ? AND deleted = 0 ORDER BY team_id, id

-- name: deleted_with_doc
SELECT team_id, id, doc, created_at, updated_at FROM {db}.api_resources FINAL
WHERE kind = ? AND deleted = 1 AND doc != '{}' ORDER BY team_id, id

-- name: drop_old_resource_versions
OPTIMIZE TABLE {db}.api_resources FINAL

-- name: insert_claim
-- On a cluster the claim is on a quorum of replicas before the insert
-- returns, and the read below sees every quorum write; on one server both
-- settings change nothing.
INSERT INTO {db}.api_alert_claims (alert_id, window_start, replica)
SETTINGS insert_quorum = 'auto', insert_quorum_parallel = 0
VALUES (?, fromUnixTimestamp64Milli(?, 'UTC'), ?)

-- name: claim_winner
SELECT argMin(replica, (claimed_at, replica)) FROM {db}.api_alert_claims
WHERE alert_id = ? AND window_start = fromUnixTimestamp64Milli(?, 'UTC')
SETTINGS select_sequential_consistency = 1

-- name: insert_evaluation
INSERT INTO {db}.api_alert_history (team_id, alert_id, window_start, window_end, state, previous_state, value, group_key,
    notified, delivery_attempts, delivery_error, idempotency_key, evaluated_at)
VALUES (?, ?, fromUnixTimestamp64Milli(?, 'UTC'), fromUnixTimestamp64Milli(?, 'UTC'), ?, ?, ?, ?, ?, ?, ?, ?,
    fromUnixTimestamp64Milli(?, 'UTC'))

-- name: count_evaluations_of_window
SELECT count() FROM {db}.api_alert_history WHERE alert_id = ? AND window_start = fromUnixTimestamp64Milli(?, 'UTC')

-- name: history
SELECT window_start, window_end, state, previous_state, value, group_key, notified, delivery_attempts, delivery_error,
    idempotency_key, evaluated_at
FROM {db}.api_alert_history WHERE team_id = ? AND alert_id = ?
ORDER BY window_start DESC, evaluated_at DESC LIMIT ? OFFSET ?

-- name: keep_history
-- The engine drops older evaluations as it merges; existing parts are not
-- rewritten for it.
ALTER TABLE {db}.api_alert_history MODIFY TTL toDateTime(window_start) + toIntervalSecond(?)
SETTINGS materialize_ttl_after_modify = 0

-- name: keep_all_history
ALTER TABLE {db}.api_alert_history REMOVE TTL

-- name: history_table
SHOW CREATE TABLE {db}.api_alert_history

-- name: insert_user
INSERT INTO {db}.api_users (id, team_id, email, password_hash, role, version, deleted, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?, fromUnixTimestamp64Milli(?, 'UTC'))

-- name: count_users
SELECT count() FROM {db}.api_users FINAL WHERE deleted = 0

-- name: user_by_email
SELECT id, team_id, email, password_hash, role, created_at FROM {db}.api_users FINAL WHERE email = ? AND deleted = 0

-- name: user_by_id
SELECT id, team_id, email, password_hash, role, created_at FROM {db}.api_users FINAL WHERE id = ? AND deleted = 0

-- name: team_users
SELECT id, team_id, email, password_hash, role, created_at FROM {db}.api_users FINAL
WHERE team_id = ? AND deleted = 0 ORDER BY created_at, id

-- name: insert_session
INSERT INTO {db}.api_sessions (hash, user_id, team_id, created_at, seen_at, expires_at, version, deleted)
VALUES (?, ?, ?, fromUnixTimestamp64Milli(?, 'UTC'), fromUnixTimestamp64Milli(?, 'UTC'), fromUnixTimestamp64Milli(?, 'UTC'), ?, ?)

-- name: get_session
SELECT user_id, team_id, created_at, seen_at, expires_at FROM {db}.api_sessions FINAL WHERE hash = ? AND deleted = 0

-- name: user_sessions
SELECT hash, team_id, created_at, seen_at, expires_at FROM {db}.api_sessions FINAL WHERE user_id = ? AND deleted = 0

-- name: insert_invitation
INSERT INTO {db}.api_invitations (hash, id, team_id, email, created_by, created_at, expires_at, version, deleted)
VALUES (?, ?, ?, ?, ?, fromUnixTimestamp64Milli(?, 'UTC'), fromUnixTimestamp64Milli(?, 'UTC'), ?, ?)

-- name: invitation_by_hash
SELECT hash, id, team_id, email, created_by, created_at, expires_at FROM {db}.api_invitations FINAL
WHERE hash = ? AND deleted = 0

-- name: team_invitations
SELECT hash, id, team_id, email, created_by, created_at, expires_at FROM {db}.api_invitations FINAL
WHERE team_id = ? AND deleted = 0 ORDER BY created_at, id
