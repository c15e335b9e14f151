package apitest

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// ReportEnv names the environment variable that, when set to a file path,
// makes Report write the unexercised operations there too, one a line.
const ReportEnv = "ERMINE_CONTRACT_REPORT"

// Report ends a test binary: it prints how many contract operations the
// binary's tests exercised with a valid success response and which were
// not, writes that list to the file named by $ERMINE_CONTRACT_REPORT when
// set, and returns code (m.Run's result) or 1 when the file cannot be
// written. Use it in TestMain: os.Exit(apitest.Report(m.Run())).
func Report(code int) int {
	if err := report(os.Stdout, os.Getenv(ReportEnv)); err != nil {
		fmt.Fprintln(os.Stderr, "contract report:", err)
		return 1
	}
	return code
}

func report(w io.Writer, file string) error {
	t := &panicTB{}
	ops := Operations(t)
	var missing []*Operation
	for _, op := range ops {
		if !Exercised(op.ID) {
			missing = append(missing, op)
		}
	}
	ids := make([]string, len(missing))
	lines := make([]string, len(missing))
	for i, op := range missing {
		ids[i] = op.ID
		lines[i] = fmt.Sprintf("%s %s %s\n", op.ID, op.Method, op.Path)
	}
	summary := fmt.Sprintf("contract: %d of %d operations exercised; unexercised (%d): %s",
		len(ops)-len(missing), len(ops), len(missing), strings.Join(ids, " "))
	if _, err := fmt.Fprintln(w, summary); err != nil {
		return fmt.Errorf("print: %w", err)
	}
	if file == "" {
		return nil
	}
	content := fmt.Sprintf("# contract: %d of %d operations exercised; unexercised (%d), listed below.\n"+
		"# Written by the tests of internal/api when $%s names this file (`make contract`).\n%s",
		len(ops)-len(missing), len(ops), len(missing), ReportEnv, strings.Join(lines, ""))
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	return nil
}

// panicTB is the testing.TB Report uses outside any test: the contract is
// embedded, so failing to load it is a bug worth a panic.
type panicTB struct{ testing.TB }

func (panicTB) Helper() {}

func (panicTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
