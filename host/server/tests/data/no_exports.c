/* A shared library that exports none of the bot ABI's functions (no `init`, no `think`): it
   cannot load, whatever a worker reports of it. */
int othello_test_not_a_bot = 1;
