package postgres_test

import (
	"context"
	"flag"
	"fmt"
	"log"
	"testing"

	"github.com/voxkit/voxkit/internal/testkit/pgtest"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/store/postgres"
)

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() && flag.Lookup("test.skip").Value.String() == "" {
		// Example starts PostgreSQL, as every test here does through
		// pgtest.Start, which skips under -short; an example cannot skip
		// itself. make test runs it.
		flag.Set("test.skip", "^Example$")
	}
	pgtest.Main(m)
}

func Example() {
	dsn := databaseURL() // such as postgres://voxkit:PASSWORD@db.internal/voxkit?sslmode=verify-full
	ctx := context.Background()
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	if _, err := st.CreateAccount(ctx, "acme"); err != nil {
		log.Fatal(err)
	}
	_, plaintext, err := st.CreateKey(ctx, store.NewKey{Account: "acme", Name: "ci", Scope: store.ScopeSpeech})
	if err != nil {
		log.Fatal(err)
	}
	k, err := st.VerifyKey(ctx, plaintext)
	fmt.Println(k.Account, k.Name, k.Scope, err)
	// Output: acme ci speech <nil>
}

// databaseURL returns a new database of the test server.
func databaseURL() string {
	dsn, err := pgtest.Database()
	if err != nil {
		log.Fatal(err)
	}
	return dsn
}
