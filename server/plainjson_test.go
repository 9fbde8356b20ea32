package server

import (
	"encoding/json"
	"reflect"
	"testing"
)

// plainCases are run messages of the plain form and near it.
var plainCases = []string{
	`{"type":"run","tag":"r","request":{"code":"x","step":8,"ranks":4,"fill":"randn","seed":77}}`,
	`{"type":"run","tag":7,"request":{"code":"x","variant":"bug","kernel":"k","entry":"e_{P}","schedule":"random:3","platform":"950"}}`,
	`{"request":{"code":"x","seed":0},"tag":-12,"type":"run","id":"abc"}`,
	`{"type":"run","request":{}}`,
	`{}`,
	`{"type":"run","request":{"code":"x","seed":-0}}`,
	`{"type":"run","request":{"code":"x","seed":-1}}`,
	`{"type":"run","request":{"code":"x","ranks":-0}}`,
	`{"type":"run","request":{"code":"x","ranks":04}}`,
	`{"type":"run","request":{"code":"x","ranks":4.0}}`,
	`{"type":"run","request":{"code":"x","ranks":1e3}}`,
	`{"type":"run","request":{"code":"x","ranks":123456789012345678901}}`,
	`{"type":"run","request":{"code":"x","seed":18446744073709551616}}`,
	`{"type":"run","request":{"code":"x","ranks":"4"}}`,
	`{"type":"run","request":{"code":"x","fill":4}}`,
	`{"type":"run","request":{"code":"x","ranks":4,"ranks":2}}`,
	`{"type":"run","request":{"code":"x","Ranks":4}}`,
	`{"type":"run","request":{"code":"x","args":{"N":2}}}`,
	`{"type":"run","request":{"code":"x","other":1}}`,
	`{"type":"run","request":{"code":"x","entry":"a\"b"}}`,
	`{"type":"run","request":{"code":"x","entry":"é"}}`,
	`{"type":"run","request":{"code":"x"} }`,
	`{"type":"run", "request":{"code":"x"}}`,
	`{"type":"run","request":{"code":"x"},}`,
	`{"type":"run","request":{"code":"x"}`,
	`{"type":"run","request":{"code":"x"}}}`,
	`{"type":"run","request":{"code":"x","nested":{"a":{"b":1}}}}`,
	`{"type":"run","request":[1]}`,
	`{"type":"run","tag":{"a":1},"request":{"code":"x"}}`,
	`{"type":"run","tag":null,"request":{"code":"x"}}`,
	`{"type":"run","tag":"a","tag":"b","request":{"code":"x"}}`,
	`{"type":"run","request":{"code":"x"},"request":{"ranks":2}}`,
	`{"type":"run","request":null}`,
	`{"type":null,"request":{"code":"x"}}`,
	`{"type":"run","request":{"code":"x","step":-5}}`,
}

// TestPlainJSON: the plain decoders decode what json decodes the same, or
// decline.
func TestPlainJSON(t *testing.T) {
	accepted := 0
	for _, c := range plainCases {
		got, ok := plainRunMessage([]byte(c))
		var want sessionRunMsg
		err := json.Unmarshal([]byte(c), &want)
		if ok {
			accepted++
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: plain %+v (request %+v), json %+v %v", c, got, got.Request, want, err)
			}
		}
		var m sessionIn
		if json.Unmarshal([]byte(c), &m) != nil || len(m.Request) == 0 {
			continue
		}
		var r, wr runRequest
		werr := json.Unmarshal(m.Request, &wr)
		if plainRequest(m.Request, &r) && (werr != nil || !reflect.DeepEqual(r, wr)) {
			t.Errorf("%s: plain request %+v, json %+v %v", m.Request, r, wr, werr)
		}
	}
	if accepted < 5 {
		t.Errorf("only %d messages of the plain form accepted", accepted)
	}
}
