package web

import (
	"html/template"
	"net/http"
)

var page = template.Must(template.New("p").Parse(`<h1>{{.Name}}</h1>{{.Role}}`))

func Profile(w http.ResponseWriter, r *http.Request) {
	_ = page.Execute(w, map[string]any{"Name": r.URL.Query().Get("name"), "Role": Badge("member")})
}
