module pldworkbench

go 1.26
