package server

import (
	"encoding/json"
	"strconv"
)

// A run's settings go out in its id's hash, its started answer, its
// status message and its stored row, each encoded by json.Marshal through
// reflection: a twentieth of a run message's decoding and answering. The
// writers below make json.Marshal's bytes of the same values
// (TestSettingsJSON holds them to that).

// appendSettings appends st's JSON.
func appendSettings(b []byte, st *Settings) []byte {
	if len(st.Args) > 0 {
		// Args' floats and their sorted keys: rare, left to json.
		j, _ := json.Marshal(st) // plain fields and finite floats: cannot fail
		return append(b, j...)
	}
	b = append(b, '{')
	if st.Step != 0 {
		b = append(b, `"step":`...)
		b = strconv.AppendInt(b, int64(st.Step), 10)
		b = append(b, ',')
	}
	if st.Variant != "" {
		b = append(b, `"variant":`...)
		b = appendJSONString(b, st.Variant)
		b = append(b, ',')
	}
	if st.Kernel != "" {
		b = append(b, `"kernel":`...)
		b = appendJSONString(b, st.Kernel)
		b = append(b, ',')
	}
	b = append(b, `"ranks":`...)
	b = strconv.AppendInt(b, int64(st.Ranks), 10)
	b = append(b, `,"entry":`...)
	b = appendJSONString(b, st.Entry)
	b = append(b, `,"fill":`...)
	b = appendJSONString(b, st.Fill)
	b = append(b, `,"seed":`...)
	b = strconv.AppendUint(b, st.Seed, 10)
	b = append(b, `,"schedule":`...)
	b = appendJSONString(b, st.Schedule)
	b = append(b, `,"platform":`...)
	b = appendJSONString(b, st.Platform)
	if st.Backend != "" {
		b = append(b, `,"backend":`...)
		b = appendJSONString(b, st.Backend)
	}
	return append(b, '}')
}

// statusMessage is a status message's JSON (statusMsg).
func statusMessage(status, id string, st Settings, ranks int, entry string) []byte {
	b := make([]byte, 0, 192+len(id)+len(entry)+len(st.Entry))
	b = append(b, `{"type":"status","status":`...)
	b = appendJSONString(b, status)
	b = append(b, `,"id":`...)
	b = appendJSONString(b, id)
	b = append(b, `,"settings":`...)
	b = appendSettings(b, &st)
	b = append(b, `,"ranks":`...)
	b = strconv.AppendInt(b, int64(ranks), 10)
	if entry != "" {
		b = append(b, `,"entry":`...)
		b = appendJSONString(b, entry)
	}
	return append(b, '}')
}

// startedMessage is a session's started answer's JSON (sessionStarted).
// tag is the client's, as it sent it; json.Marshal compacts it and
// escapes <, > and & in it, so a tag with white space, one of those or a
// byte past ASCII goes through json.
func startedMessage(tag json.RawMessage, pr *postResponse) []byte {
	for _, c := range tag {
		if c <= ' ' || c > '~' || c == '<' || c == '>' || c == '&' {
			return mustJSON(sessionStarted{Type: "started", Tag: tag, postResponse: *pr})
		}
	}
	b := make([]byte, 0, 224+len(tag)+len(pr.ID))
	b = append(b, `{"type":"started"`...)
	if len(tag) > 0 {
		b = append(b, `,"tag":`...)
		b = append(b, tag...)
	}
	b = append(b, `,"id":`...)
	b = appendJSONString(b, pr.ID)
	b = append(b, `,"cached":`...)
	b = strconv.AppendBool(b, pr.Cached)
	b = append(b, `,"settings":`...)
	b = appendSettings(b, &pr.Settings)
	return append(b, '}')
}
