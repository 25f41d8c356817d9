package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/voxkit/voxkit/server/store"
)

// VoiceStore keeps the voice clones.
type VoiceStore struct{ db *db }

const (
	voiceColumns = "id, account, base, name, speed, pitch, pitch_range, volume, whisper, created, sample"
	// voiceHeadColumns are voiceColumns with whether there is a sample in
	// place of the sample.
	voiceHeadColumns = "id, account, base, name, speed, pitch, pitch_range, volume, whisper, created, sample IS NOT NULL"
)

func scanVoice(sc scanner) (store.Voice, error) {
	var v store.Voice
	err := sc.Scan(&v.ID, &v.Account, &v.Base, &v.Name, &v.Speed, &v.Pitch, &v.Range, &v.Volume, &v.Whisper, timeDest{&v.Created}, &v.Sample)
	return v, err
}

func scanVoiceHead(sc scanner) (store.Voice, error) {
	var v store.Voice
	var sampled bool
	err := sc.Scan(&v.ID, &v.Account, &v.Base, &v.Name, &v.Speed, &v.Pitch, &v.Range, &v.Volume, &v.Whisper, timeDest{&v.Created}, &sampled)
	if sampled {
		v.Sample = []byte{}
	}
	return v, err
}

func voiceNotFound(account, id string) error {
	return fmt.Errorf("%w: voice %q of account %q", store.ErrNotFound, id, account)
}

// voiceChanged runs the dialect's statement for a clone created or
// deleted in tx, if it has one.
func voiceChanged(ctx context.Context, tx q, account, id string) error {
	if tx.d.VoiceChanged == nil {
		return nil
	}
	query, args := tx.d.VoiceChanged(account, id)
	_, err := tx.exec(ctx, query, args...)
	return err
}

// CreateVoice implements store.Store.
func (s *VoiceStore) CreateVoice(ctx context.Context, v store.Voice, max int) (store.Voice, error) {
	if err := v.Check(); err != nil {
		return store.Voice{}, err
	}
	v.Created = s.db.stamp()
	err := s.db.inTx(ctx, "create voice", func(tx q) error {
		if err := lockAccount(ctx, tx, v.Account); err != nil {
			return err
		}
		ok, err := below(ctx, tx, max, "SELECT count(*) FROM voices WHERE account = ?", v.Account)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: account %q holds %d voices", store.ErrLimit, v.Account, max)
		}
		_, err = tx.exec(ctx, "INSERT INTO voices("+voiceColumns+") VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			v.ID, v.Account, v.Base, v.Name, v.Speed, v.Pitch, v.Range, v.Volume, v.Whisper, tx.d.time(v.Created), v.Sample)
		if tx.d.IsUnique(err) {
			return fmt.Errorf("%w: %q", store.ErrVoiceExists, v.ID)
		}
		if err != nil {
			return err
		}
		return voiceChanged(ctx, tx, v.Account, v.ID)
	})
	if err != nil {
		return store.Voice{}, err
	}
	return v, nil
}

// Voice implements store.Store.
func (s *VoiceStore) Voice(ctx context.Context, account, id string) (store.Voice, error) {
	if !s.db.d.storable(account, id) {
		return store.Voice{}, voiceNotFound(account, id)
	}
	v, err := scanVoice(s.db.q().row(ctx, "SELECT "+voiceColumns+" FROM voices WHERE account = ? AND id = ?", account, id))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Voice{}, voiceNotFound(account, id)
	}
	if err != nil {
		return store.Voice{}, fmt.Errorf("store: voice: %w", err)
	}
	return v, nil
}

// Voices implements store.Store.
func (s *VoiceStore) Voices(ctx context.Context, account string) ([]store.Voice, error) {
	return s.list(ctx, voiceColumns, scanVoice, account)
}

// VoiceHeads implements store.VoiceHeader.
func (s *VoiceStore) VoiceHeads(ctx context.Context, account string) ([]store.Voice, error) {
	return s.list(ctx, voiceHeadColumns, scanVoiceHead, account)
}

// list lists the columns of account's clones, or of every clone, by id
// (and account), their bytes compared.
func (s *VoiceStore) list(ctx context.Context, columns string, scan func(scanner) (store.Voice, error), account string) ([]store.Voice, error) {
	c := s.db.d.Collate
	rows, err := s.db.q().rows(ctx, "SELECT "+columns+" FROM voices WHERE ? = '' OR account = ? ORDER BY id"+c+", account"+c, account, account)
	out, err := collect(rows, err, scan)
	if err != nil {
		return nil, fmt.Errorf("store: voices: %w", err)
	}
	return out, nil
}

// VoiceCount implements store.VoiceCounter.
func (s *VoiceStore) VoiceCount(ctx context.Context, account string) (n int, err error) {
	if err = s.db.q().row(ctx, "SELECT count(*) FROM voices WHERE account = ?", account).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: counting voices: %w", err)
	}
	return n, nil
}

// DeleteVoice implements store.Store.
func (s *VoiceStore) DeleteVoice(ctx context.Context, account, id string) (store.Voice, error) {
	if !s.db.d.storable(account, id) {
		return store.Voice{}, voiceNotFound(account, id)
	}
	var v store.Voice
	err := s.db.inTx(ctx, "delete voice", func(tx q) error {
		var err error
		v, err = scanVoice(tx.row(ctx, "DELETE FROM voices WHERE account = ? AND id = ? RETURNING "+voiceColumns, account, id))
		if errors.Is(err, sql.ErrNoRows) {
			return voiceNotFound(account, id)
		}
		if err != nil {
			return err
		}
		return voiceChanged(ctx, tx, account, id)
	})
	if err != nil {
		return store.Voice{}, err
	}
	return v, nil
}
