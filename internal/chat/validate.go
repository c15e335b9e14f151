package chat

import (
	"fmt"
	"regexp"
	"unicode/utf8"
)

// Validator is a request body that checks its own field rules (lengths,
// patterns, enums of the contract). Validate returns ErrInvalidBody naming
// the first offending field.
type Validator interface {
	Validate() error
}

// CheckLength checks that s has between min and max characters (the
// contract counts characters, not bytes). max < 0 means no upper bound.
func CheckLength(field, s string, min, max int) error {
	n := utf8.RuneCountInString(s)
	if n < min {
		return ErrInvalidBody(fmt.Sprintf("%s: must be at least %d characters", field, min))
	}
	if max >= 0 && n > max {
		return ErrInvalidBody(fmt.Sprintf("%s: must be at most %d characters", field, max))
	}
	return nil
}

// CheckOptionalLength is CheckLength for an optional field.
func CheckOptionalLength(field string, s *string, min, max int) error {
	if s == nil {
		return nil
	}
	return CheckLength(field, *s, min, max)
}

// CheckPattern checks that s matches re.
func CheckPattern(field, s string, re *regexp.Regexp) error {
	if !re.MatchString(s) {
		return ErrInvalidBody(fmt.Sprintf("%s: does not match %s", field, re))
	}
	return nil
}

// CheckEnum checks that s is one of allowed.
func CheckEnum(field, s string, allowed ...string) error {
	for _, a := range allowed {
		if s == a {
			return nil
		}
	}
	return ErrInvalidBody(fmt.Sprintf("%s: must be one of %v", field, allowed))
}

// CheckCount checks that a list has between min and max items.
func CheckCount(field string, n, min, max int) error {
	if n < min || (max >= 0 && n > max) {
		return ErrInvalidBody(fmt.Sprintf("%s: must have between %d and %d items", field, min, max))
	}
	return nil
}

// FirstError returns the first non-nil error.
func FirstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
