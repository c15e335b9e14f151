package pubsub

import (
	"errors"
	"strings"
	"testing"
)

func TestValidTopic(t *testing.T) {
	tests := []struct {
		topic string
		want  bool
	}{
		{"01J0000000000000000000000A", true},
		{"01J0000000000000000000000A!", true},
		{"01J0000000000000000000000Au", true},
		{"", false},
		{"a.b", false},
		{"a b", false},
		{"*", false},
		{">", false},
		{"a-b", false},
		{"é", false},
	}
	for _, tt := range tests {
		t.Run(tt.topic, func(t *testing.T) {
			if got := ValidTopic(tt.topic); got != tt.want {
				t.Errorf("ValidTopic(%q) = %v, want %v", tt.topic, got, tt.want)
			}
			err := CheckTopics("ok", tt.topic)
			if tt.want != (err == nil) {
				t.Errorf("CheckTopics(%q) = %v", tt.topic, err)
			}
			if err != nil && (!errors.Is(err, ErrInvalidTopic) || !strings.Contains(err.Error(), `"`+tt.topic+`"`)) {
				t.Errorf("CheckTopics(%q) = %v, want ErrInvalidTopic naming the topic", tt.topic, err)
			}
		})
	}
}
