package auth

import (
	"fmt"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// TOTP codes are RFC 6238 defaults: six digits, 30-second steps, SHA-1,
// which every authenticator app understands.
const (
	TOTPPeriod = 30
	totpDigits = otp.DigitsSix
)

// NewTOTPSecret returns a new TOTP secret: 16 base32 characters (80 bits).
// issuer and account label the key in authenticator apps.
func NewTOTPSecret(issuer, account string) (string, error) {
	key, err := totp.Generate(totp.GenerateOpts{
		Issuer: issuer, AccountName: account, Period: TOTPPeriod, SecretSize: 10,
		Digits: totpDigits, Algorithm: otp.AlgorithmSHA1,
	})
	if err != nil {
		return "", fmt.Errorf("generate totp secret: %w", err)
	}
	return key.Secret(), nil
}

// TOTPStep is the number of the 30-second step t falls in.
func TOTPStep(t time.Time) int64 { return t.Unix() / TOTPPeriod }

// TOTPCode returns the code of secret for the step t falls in.
func TOTPCode(secret string, t time.Time) (string, error) {
	code, err := totp.GenerateCodeCustom(secret, t, totp.ValidateOpts{
		Period: TOTPPeriod, Digits: totpDigits, Algorithm: otp.AlgorithmSHA1,
	})
	if err != nil {
		return "", fmt.Errorf("totp code: %w", err)
	}
	return code, nil
}

// CheckTOTP looks for code among the codes of secret for the step of now
// and the steps just before and after it (clock drift), skipping steps at
// or before lastStep: a code once accepted is never accepted again. It
// returns the step matched, to be stored as the new lastStep.
func CheckTOTP(secret, code string, now time.Time, lastStep int64) (int64, bool) {
	if len(code) != int(totpDigits) {
		return 0, false
	}
	cur := TOTPStep(now)
	for step := cur - 1; step <= cur+1; step++ {
		if step <= lastStep {
			continue
		}
		want, err := TOTPCode(secret, time.Unix(step*TOTPPeriod, 0))
		if err != nil {
			return 0, false
		}
		if Equal(want, code) {
			return step, true
		}
	}
	return 0, false
}
