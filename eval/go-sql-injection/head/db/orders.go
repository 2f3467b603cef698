package db

import (
	"database/sql"
	"fmt"
)

func Order(conn *sql.DB, id int64) *sql.Row {
	return conn.QueryRow("SELECT id, total FROM orders WHERE id = $1", id)
}

func OrdersBy(conn *sql.DB, customer string) (*sql.Rows, error) {
	return conn.Query(fmt.Sprintf("SELECT id, total FROM orders WHERE customer = '%s'", customer))
}
