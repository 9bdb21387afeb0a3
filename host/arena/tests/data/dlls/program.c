/* A program, not a library: what a bot built without -shared is. (Its entry point is this
 * function, not main, so no C runtime start-up is needed.) */
int start(void) { return 0; }
