package configs

import (
	"encoding/json"
	"reflect"
	"strings"
)

// JSON renders the effective configuration as the config file's tables in
// JSON: the same keys as the file (and as TOML gives), every path expanded.
// (Effective itself marshals as its Go fields, which nested runs rely on.)
func (e *Effective) JSON() ([]byte, error) {
	return json.Marshal(tomlShaped(reflect.ValueOf(e.document())))
}

// tomlShaped turns a value of the config file's document types into maps
// keyed by their toml names, so the JSON and TOML renderings cannot drift
// apart.
func tomlShaped(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Struct:
		m := make(map[string]any, v.NumField())
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
			if name == "" || name == "-" {
				continue
			}
			m[name] = tomlShaped(v.Field(i))
		}
		return m
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return tomlShaped(v.Elem())
	}
	return v.Interface()
}
