package web

import (
	"fmt"
	"html/template"
)

// Badge wraps a label in a styled span. The label is trusted markup.
func Badge(label string) template.HTML {
	return template.HTML(fmt.Sprintf(`<span class="badge">%s</span>`, label))
}
