package db

import "database/sql"

func Order(conn *sql.DB, id int64) *sql.Row {
	return conn.QueryRow("SELECT id, total FROM orders WHERE id = $1", id)
}
