package api

import (
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hyperdxTeamCommit: the index this project reads HyperDX from holds the
// team tests at this commit only (no team.int.test.ts at hyperdxCommit);
// its cases are the same routes' contract.
const hyperdxTeamCommit = "5405119c34068d7455d3522be0de404aa827365a"

// Replays HyperDX's packages/api/src/routers/external-api/__tests__/
// team.test.ts (commit hyperdxTeamCommit).
func TestHyperDXTeam(t *testing.T) {
	require.Len(t, hyperdxTeamCommit, 40)
	const base = "/api/v2/team"
	replay(t, "team.test.ts", []hxCase{
		// GET /api/v2/team
		{"returns the team id and name", func(c *contractFixture) {
			r := c.expect(200, "GET", base, nil)
			assert.Equal(t, c.team, r.data()["id"])
			assert.Contains(t, r.data(), "name")
		}},
		{"requires authentication", func(c *contractFixture) {
			r := c.doAuth("GET", base, nil, "")
			assert.Equal(t, http.StatusUnauthorized, r.status)
		}},
		// GET /api/v2/team/members
		{"returns the current user", func(c *contractFixture) {
			r := c.expect(200, "GET", base+"/members", nil)
			var me map[string]any
			for _, m := range r.list() {
				if m := m.(map[string]any); m["email"] == c.email {
					me = m
				}
			}
			require.NotNil(t, me)
			assert.Equal(t, true, me["isCurrentUser"])
		}},
		// Invitations
		{"creates a pending invitation and lists then deletes it", func(c *contractFixture) {
			inv := c.expect(200, "POST", base+"/invitation", map[string]any{"email": "oss-invitee@deploysentinel.com"})
			assert.Equal(t, "pending", inv.data()["status"])
			assert.Contains(t, inv.data()["url"], "/join-team?token=")
			id := inv.data()["invitationId"].(string)
			list := c.expect(200, "GET", base+"/invitations", nil)
			found := false
			for _, i := range list.list() {
				found = found || i.(map[string]any)["email"] == "oss-invitee@deploysentinel.com"
			}
			assert.True(t, found)
			c.expect(200, "DELETE", base+"/invitation/"+id, nil)
		}},
		{"rejects inviting an existing user", func(c *contractFixture) {
			c.expect(400, "POST", base+"/invitation", map[string]any{"email": c.email})
		}},
		{"handles concurrent invites for the same email idempotently", func(c *contractFixture) {
			const email = "race@deploysentinel.com"
			var wg sync.WaitGroup
			answers := make([]hxResp, 5)
			for i := range answers {
				wg.Go(func() { answers[i] = c.do("POST", base+"/invitation", map[string]any{"email": email}) })
			}
			wg.Wait()
			ids := map[any]bool{}
			for _, r := range answers {
				assert.Equal(t, 200, r.status, string(r.raw))
				ids[r.data()["invitationId"]] = true
			}
			assert.Len(t, ids, 1)
			list := c.expect(200, "GET", base+"/invitations", nil)
			n := 0
			for _, i := range list.list() {
				if i.(map[string]any)["email"] == email {
					n++
				}
			}
			assert.Equal(t, 1, n)
		}},
	})
}

// Replays HyperDX's packages/api/src/routers/external-api/__tests__/
// v2.int.test.ts (the index holds it at commit 136ddac3326eda73af92f3dd786ce0e014383e83).
func TestHyperDXV2(t *testing.T) {
	replay(t, "v2.int.test.ts", []hxCase{
		{"GET /api/v2", func(c *contractFixture) {
			r := c.expect(200, "GET", "/api/v2", nil)
			assert.Equal(t, "v2", r.body["version"])
			assert.Equal(t, "u-"+c.team, r.body["user"].(map[string]any)["_id"])
		}},
	})
}
