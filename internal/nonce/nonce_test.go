package nonce_test

import (
	"testing"

	"ermine/internal/nonce"
	"ermine/internal/nonce/noncetest"
)

func TestMemoryConformance(t *testing.T) {
	noncetest.Run(t, func(*testing.T) nonce.Guard { return nonce.NewMemory(0) })
}
