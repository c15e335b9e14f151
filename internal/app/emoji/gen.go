//go:build ignore

// gen writes unicode.txt, the Unicode emoji reactions may use, from the
// data-by-emoji.json file of the npm package unicode-emoji-json (MIT,
// itself generated from unicode.org's emoji-test.txt):
//
//	npm pack unicode-emoji-json@0.9.0 && tar xzf unicode-emoji-json-0.9.0.tgz
//	go run gen.go package/data-by-emoji.json
//
// The list is committed; building Ermine never runs this.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: go run gen.go data-by-emoji.json")
	}
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		return err
	}
	var data map[string]struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		return err
	}
	list := make([]string, 0, len(data))
	for e := range data {
		list = append(list, e)
	}
	sort.Strings(list)
	f, err := os.Create("unicode.txt")
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, e := range list {
		fmt.Fprintln(w, e)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
