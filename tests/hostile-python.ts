/**
 * Hostile Python shared by the Node and browser grader tests (tests/unit/grader, tests/e2e):
 * pieces a candidate's function body is built from.
 */
// `sys` without importing it: the globals of any stdlib function defined in a module that did.
export const SYS =
  "    sys = [g['sys'] for c in object.__subclasses__() for fn in vars(c).values() if type(fn).__name__ == 'function'" +
  " for g in [fn.__globals__] if type(g.get('sys')).__name__ == 'module'][0]\n";
// Everything reachable from a candidate: classes, their attributes, function globals and closure
// cells, module dicts, and every object the collector tracks (with their referents). Counts the
// instances of Pyodide's JsProxy class (every object that holds a JavaScript value, the Pyodide
// API object `pyodide_js` included); -1 when the JsProxy class itself cannot be found.
export const WALK =
  SYS +
  "    gc = sys.modules['gc']\n" +
  "    classes, todo = [], [object]\n" +
  "    while todo:\n" +
  "        for c in type.__subclasses__(todo.pop()):\n" +
  "            if c not in classes:\n" +
  "                classes.append(c)\n" +
  "                todo.append(c)\n" +
  "    proxy = [c for c in classes if c.__name__ == 'JsProxy']\n" +
  "    if not proxy:\n" +
  "        return -1\n" +
  "    todo = [object, sys.modules, vars(sys)] + gc.get_objects() + list(sys.modules.values())\n" +
  "    seen, found = set(), []\n" +
  "    while todo:\n" +
  "        o = todo.pop()\n" +
  "        if id(o) in seen:\n" +
  "            continue\n" +
  "        seen.add(id(o))\n" +
  "        t = type(o)\n" +
  "        if issubclass(t, proxy[0]) or t.__name__ == 'JsProxyLookalike':\n" +
  "            found.append(t.__name__)\n" +
  "        if isinstance(o, type):\n" +
  "            todo.extend(type.__subclasses__(o))\n" +
  "            todo.extend(vars(o).values())\n" +
  "        if t.__name__ == 'function':\n" +
  "            todo.append(o.__globals__)\n" +
  "            todo.extend(o.__closure__ or ())\n" +
  "        todo.extend(gc.get_referents(o))\n";
