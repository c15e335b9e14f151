module ermine

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/oklog/ulid/v2 v2.1.2
)
