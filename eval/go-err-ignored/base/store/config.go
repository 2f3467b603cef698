package store

import (
	"encoding/json"
	"os"
)

type Config struct {
	Name string `json:"name"`
}

func Save(path string, c *Config) error {
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}
