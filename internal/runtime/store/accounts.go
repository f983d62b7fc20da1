package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// User is a web UI account.
type User struct {
	ID, TeamID, Email, PasswordHash, Role string
	CreatedAt                             time.Time
}

// PutUser writes a version of an account (a new one, a new password).
func (s *Store) PutUser(ctx context.Context, u User) error {
	return s.putUser(ctx, u, 0)
}

// DeleteUser removes an account.
func (s *Store) DeleteUser(ctx context.Context, u User) error {
	return s.putUser(ctx, u, 1)
}

func (s *Store) putUser(ctx context.Context, u User, deleted uint8) error {
	_, err := s.db.ExecContext(ctx, s.sql("insert_user"),
		u.ID, u.TeamID, u.Email, u.PasswordHash, u.Role, version(), deleted, u.CreatedAt.UnixMilli())
	return err
}

// UserCount is how many accounts exist (none: the first one may register).
func (s *Store) UserCount(ctx context.Context) (int, error) {
	var n uint64
	err := s.db.QueryRowContext(ctx, s.sql("count_users")).Scan(&n)
	return int(n), err
}

// UserByEmail finds an account by its lower-cased email.
func (s *Store) UserByEmail(ctx context.Context, email string) (User, error) {
	return s.oneUser(ctx, s.sql("user_by_email"), email)
}

// UserByID finds an account.
func (s *Store) UserByID(ctx context.Context, id string) (User, error) {
	return s.oneUser(ctx, s.sql("user_by_id"), id)
}

func (s *Store) oneUser(ctx context.Context, stmt, arg string) (User, error) {
	var u User
	err := s.db.QueryRowContext(ctx, stmt, arg).Scan(&u.ID, &u.TeamID, &u.Email, &u.PasswordHash, &u.Role, &u.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return u, ErrNotFound
	}
	return u, err
}

// TeamUsers lists a team's accounts, oldest first.
func (s *Store) TeamUsers(ctx context.Context, team string) ([]User, error) {
	rows, err := s.db.QueryContext(ctx, s.sql("team_users"), team)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []User
	for rows.Next() {
		var u User
		if err := rows.Scan(&u.ID, &u.TeamID, &u.Email, &u.PasswordHash, &u.Role, &u.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// Session is a signed-in browser, by the hash of its cookie.
type Session struct {
	Hash, UserID, TeamID        string
	CreatedAt, SeenAt, ExpireAt time.Time
}

// PutSession writes a version of a session (a new one, a newer seen_at).
func (s *Store) PutSession(ctx context.Context, ss Session) error {
	return s.putSession(ctx, ss, 0)
}

// DeleteSession ends a session.
func (s *Store) DeleteSession(ctx context.Context, ss Session) error {
	return s.putSession(ctx, ss, 1)
}

func (s *Store) putSession(ctx context.Context, ss Session, deleted uint8) error {
	_, err := s.db.ExecContext(ctx, s.sql("insert_session"), ss.Hash, ss.UserID, ss.TeamID,
		ss.CreatedAt.UnixMilli(), ss.SeenAt.UnixMilli(), ss.ExpireAt.UnixMilli(), version(), deleted)
	return err
}

// SessionByHash reads a live session.
func (s *Store) SessionByHash(ctx context.Context, hash string) (Session, error) {
	ss := Session{Hash: hash}
	err := s.db.QueryRowContext(ctx, s.sql("get_session"), hash).Scan(&ss.UserID, &ss.TeamID, &ss.CreatedAt, &ss.SeenAt, &ss.ExpireAt)
	if errors.Is(err, sql.ErrNoRows) {
		return ss, ErrNotFound
	}
	return ss, err
}

// UserSessions lists an account's live sessions (to end them when its
// password changes).
func (s *Store) UserSessions(ctx context.Context, userID string) ([]Session, error) {
	rows, err := s.db.QueryContext(ctx, s.sql("user_sessions"), userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		ss := Session{UserID: userID}
		if err := rows.Scan(&ss.Hash, &ss.TeamID, &ss.CreatedAt, &ss.SeenAt, &ss.ExpireAt); err != nil {
			return nil, err
		}
		out = append(out, ss)
	}
	return out, rows.Err()
}

// Invitation lets one person create an account in a team.
type Invitation struct {
	Hash, ID, TeamID, Email, CreatedBy string
	CreatedAt, ExpiresAt               time.Time
}

// PutInvitation records an invitation.
func (s *Store) PutInvitation(ctx context.Context, in Invitation) error {
	return s.putInvitation(ctx, in, 0)
}

// DeleteInvitation retires an invitation (used or revoked).
func (s *Store) DeleteInvitation(ctx context.Context, in Invitation) error {
	return s.putInvitation(ctx, in, 1)
}

func (s *Store) putInvitation(ctx context.Context, in Invitation, deleted uint8) error {
	_, err := s.db.ExecContext(ctx, s.sql("insert_invitation"), in.Hash, in.ID, in.TeamID, in.Email, in.CreatedBy,
		in.CreatedAt.UnixMilli(), in.ExpiresAt.UnixMilli(), version(), deleted)
	return err
}

// InvitationByHash reads a live invitation by its token's hash.
func (s *Store) InvitationByHash(ctx context.Context, hash string) (Invitation, error) {
	var in Invitation
	err := s.db.QueryRowContext(ctx, s.sql("invitation_by_hash"), hash).Scan(&in.Hash, &in.ID, &in.TeamID, &in.Email, &in.CreatedBy,
		&in.CreatedAt, &in.ExpiresAt)
	if errors.Is(err, sql.ErrNoRows) {
		return in, ErrNotFound
	}
	return in, err
}

// TeamInvitations lists a team's open invitations, oldest first.
func (s *Store) TeamInvitations(ctx context.Context, team string) ([]Invitation, error) {
	rows, err := s.db.QueryContext(ctx, s.sql("team_invitations"), team)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Invitation
	for rows.Next() {
		var in Invitation
		if err := rows.Scan(&in.Hash, &in.ID, &in.TeamID, &in.Email, &in.CreatedBy, &in.CreatedAt, &in.ExpiresAt); err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, rows.Err()
}
