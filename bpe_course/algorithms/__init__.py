"""The algorithms chapters build beside the engine (issue 31's wing): each module may import the engine,
formats, basics and corpus, never widgets, the command line, pretrained or chat."""
