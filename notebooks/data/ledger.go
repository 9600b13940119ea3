// Package ledger keeps an append-only record of balance changes.
package ledger

import (
	"errors"
	"sync"
	"time"
)

// Entry is one change to an account's balance.
type Entry struct {
	Account string
	Cents   int64
	At      time.Time
	Note    string
}

// Store persists entries.
type Store interface {
	Append(e Entry) error
	Since(account string, t time.Time) ([]Entry, error)
}

// Ledger is an in-memory Store.
type Ledger struct {
	mu      sync.Mutex
	entries []Entry
}

var ErrEmptyAccount = errors.New("ledger: empty account")

// Append adds an entry; corrections are new entries, never edits.
func (l *Ledger) Append(e Entry) error {
	if e.Account == "" {
		return ErrEmptyAccount
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, e)
	return nil
}

// Since lists an account's entries at or after t.
func (l *Ledger) Since(account string, t time.Time) ([]Entry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Entry
	for _, e := range l.entries {
		if e.Account == account && !e.At.Before(t) {
			out = append(out, e)
		}
	}
	return out, nil
}

// Balance sums an account's entries.
func (l *Ledger) Balance(account string) int64 {
	entries, _ := l.Since(account, time.Time{})
	var total int64
	for _, e := range entries {
		total += e.Cents
	}
	return total
}
