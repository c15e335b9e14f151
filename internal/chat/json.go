package chat

import "encoding/json"

func marshalPair(a, b any) ([]byte, error) {
	return json.Marshal([2]any{a, b})
}
