"""The KnowledgeBase's services, each a small class handed what it needs in its constructor
(see ``core/kb.py``): ``index``, ``notes``, ``graph``, ``searcher``, ``model``, ``doctor``,
``clipper``. A service may be handed another (the graph names notes as ``notes`` does), never
the KnowledgeBase."""
