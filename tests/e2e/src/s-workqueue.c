/* workqueues: known counts per worker (queue_work in turn, queue_work_on), and a pool's annotations */
#include <stdio.h>

#include <usertrace/workqueue.h>

static volatile long done;

static void crunch(struct work_struct *w)
{
	(void)w;
	__atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
}

/* a pool of one's own: 3 works on its worker 2, 2 of them run */
static void pool(struct work_struct *works)
{
	for (int i = 0; i < 3; i++)
		work_queued("mypool", 2, &works[i], crunch);
	for (int i = 0; i < 2; i++) {
		work_execute_start("mypool", 2, &works[i], crunch);
		crunch(&works[i]);
		work_execute_end("mypool", 2, &works[i], crunch);
	}
}

int main(int argc, char **argv)
{
	static struct work_struct works[10], one;
	struct workqueue_struct *wq, *io;
	int queued = 0;

	(void)argv;
	if (argc > 1) {		/* the annotations alone */
		pool(works);
		printf("%ld done\n", done);
		return 0;
	}
	wq = alloc_workqueue("crunch", 0, 2);
	io = alloc_workqueue("io", 0, 1);

	/* 10 works in turn: 5 to each worker, each waited for before it is queued again */
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 10; i++) {
			INIT_WORK(&works[i], crunch);
			queued += queue_work(wq, &works[i]);
		}
		flush_workqueue(wq);
	}
	/* 4 to worker 1 */
	for (int i = 0; i < 4; i++) {
		INIT_WORK(&one, crunch);
		queue_work_on(1, wq, &one);
		flush_workqueue(wq);
	}
	INIT_WORK(&one, crunch);
	queue_work(io, &one);
	destroy_workqueue(io);
	destroy_workqueue(wq);
	pool(works);
	printf("%d queued, %ld done\n", queued + 5, done);
	return 0;
}
