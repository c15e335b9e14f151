package api_test

import (
	"os"
	"testing"

	"ermine/internal/apitest"
)

// TestMain runs the tests, then prints which contract operations they
// exercised (set ERMINE_CONTRACT_REPORT to a file to get the list there;
// `make contract` refreshes testdata/unexercised.txt).
func TestMain(m *testing.M) {
	os.Exit(apitest.Report(m.Run()))
}
