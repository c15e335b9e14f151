package disk_test

import (
	"testing"

	"ermine/internal/blob"
	"ermine/internal/blob/blobtest"
	"ermine/internal/blob/disk"
)

func TestConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blob.Store {
		s, err := disk.Open(t.TempDir() + "/files")
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
