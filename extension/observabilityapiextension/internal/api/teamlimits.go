package api

import "sync"

// TeamLimits bound the resources a team keeps of each kind, so that one
// key cannot grow the API's state, its list answers or the alert
// scheduler's passes without bound. Zero takes the default.
type TeamLimits struct {
	Dashboards int `mapstructure:"dashboards"`
	Alerts     int `mapstructure:"alerts"`
	Sources    int `mapstructure:"sources"`
	Webhooks   int `mapstructure:"webhooks"`
	// SavedSearches: HyperDX's saved searches.
	SavedSearches int `mapstructure:"saved_searches"`
	// Connections: the ClickHouse servers a team's sources may name.
	Connections int `mapstructure:"connections"`
}

// DefaultTeamLimits are generous for people and scripts alike: a
// thousand dashboards of the largest size are 1 GiB of state.
var DefaultTeamLimits = TeamLimits{Dashboards: 1000, Alerts: 1000, Sources: 100, Webhooks: 100, SavedSearches: 1000, Connections: 100}

// Of is the limit of a kind of resource.
func (l TeamLimits) Of(kind string) int {
	n, d := 0, 0
	switch kind {
	case kindDashboard:
		n, d = l.Dashboards, DefaultTeamLimits.Dashboards
	case kindAlert:
		n, d = l.Alerts, DefaultTeamLimits.Alerts
	case kindSource:
		n, d = l.Sources, DefaultTeamLimits.Sources
	case kindSaved:
		n, d = l.SavedSearches, DefaultTeamLimits.SavedSearches
	case kindConn:
		n, d = l.Connections, DefaultTeamLimits.Connections
	default:
		n, d = l.Webhooks, DefaultTeamLimits.Webhooks
	}
	if n <= 0 {
		return d
	}
	return n
}

// keyedLocks serialise work per key (a team's creates of one kind).
type keyedLocks struct {
	mu sync.Mutex
	m  map[string]*keyedLock
}

type keyedLock struct {
	sync.Mutex
	users int
}

// lock takes key's lock and returns its release; an unused key's lock is
// dropped, so the map holds only keys in use.
func (k *keyedLocks) lock(key string) func() {
	k.mu.Lock()
	if k.m == nil {
		k.m = map[string]*keyedLock{}
	}
	l := k.m[key]
	if l == nil {
		l = &keyedLock{}
		k.m[key] = l
	}
	l.users++
	k.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		k.mu.Lock()
		if l.users--; l.users == 0 {
			delete(k.m, key)
		}
		k.mu.Unlock()
	}
}
