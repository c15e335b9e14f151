package presence_test

import (
	"testing"

	"ermine/internal/presence"
	"ermine/internal/presence/presencetest"
)

func TestMemoryConformance(t *testing.T) {
	presencetest.Run(t, func(t *testing.T) presencetest.Cluster {
		m := presence.NewMemory()
		return presencetest.Cluster{Node: func(*testing.T) presence.Tracker { return m }}
	})
}
