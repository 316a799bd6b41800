/* Deflates each input, ROUNDS times, as PresetDeflate does: a copy of a stream
 * primed with the dictionary (deflateCopy), then deflate with Z_FINISH. Prints
 * the inputs' bytes and what they deflate to; run under callgrind by
 * deflate-settings.sh, which counts the instructions.
 *   deflate-loop WINDOW_BITS MEM_LEVEL LEVEL ROUNDS DICTIONARY INPUT... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static unsigned char *slurp(const char *path, long *size) {
    FILE *file = fopen(path, "rb");
    if (!file) { perror(path); exit(2); }
    fseek(file, 0, SEEK_END);
    *size = ftell(file);
    rewind(file);
    unsigned char *bytes = malloc(*size ? *size : 1);
    if (fread(bytes, 1, *size, file) != (size_t)*size) { perror(path); exit(2); }
    fclose(file);
    return bytes;
}

int main(int argc, char **argv) {
    if (argc < 7) { fprintf(stderr, "deflate-loop WINDOW_BITS MEM_LEVEL LEVEL ROUNDS DICTIONARY INPUT...\n"); return 2; }
    int window = atoi(argv[1]), memory = atoi(argv[2]), level = atoi(argv[3]), rounds = atoi(argv[4]);
    long dictionarySize;
    unsigned char *dictionary = slurp(argv[5], &dictionarySize);
    z_stream primed;
    memset(&primed, 0, sizeof primed);
    if (deflateInit2(&primed, level, Z_DEFLATED, -window, memory, Z_DEFAULT_STRATEGY) != Z_OK ||
        deflateSetDictionary(&primed, dictionary, (uInt)dictionarySize) != Z_OK) {
        fprintf(stderr, "zlib refused window %d, memLevel %d, level %d\n", window, memory, level);
        return 2;
    }
    int count = argc - 6;
    unsigned char **inputs = malloc(count * sizeof *inputs);
    long *sizes = malloc(count * sizeof *sizes);
    for (int i = 0; i < count; i++) inputs[i] = slurp(argv[6 + i], &sizes[i]);
    long in = 0, out = 0;
    static unsigned char deflated[65536];
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < count; i++) {
            z_stream stream;
            if (deflateCopy(&stream, &primed) != Z_OK) return 1;
            stream.next_in = inputs[i];
            stream.avail_in = (uInt)sizes[i];
            stream.next_out = deflated;
            stream.avail_out = sizeof deflated;
            if (deflate(&stream, Z_FINISH) != Z_STREAM_END) return 1;
            if (round == 0) { in += sizes[i]; out += sizeof deflated - stream.avail_out; }
            deflateEnd(&stream);
        }
    }
    printf("%ld %ld\n", in, out);
    return 0;
}
