package cache

func Get(all map[string]map[string]string, tenant, key string) (string, bool) {
	v, ok := Lookup(all, tenant)[key]
	return v, ok
}

func Put(all map[string]map[string]string, tenant, key, value string) {
	Lookup(all, tenant)[key] = value
}
