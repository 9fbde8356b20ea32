module pldworkbench

go 1.26.0

require golang.org/x/tools v0.52.0

require github.com/pmezard/go-difflib v1.0.0

require github.com/yuin/goldmark v1.8.7
