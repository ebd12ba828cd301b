# The command of a warm sandbox (../warm_linux.go), for amd64: a static
# program without libc that reads what to run from descriptor 6 and runs
# it. Built by gen.sh into ../warmexec_amd64.go.
#
# Descriptor 6 holds, to its end: the number of arguments and the number
# of paths to try (two 32-bit little-endian numbers), then each argument
# and each path, each ended by a NUL byte, and nothing else. The program
# closes descriptors 6 and 7 (its own file) and calls execve(2) with each
# path in turn, the arguments, and its own environment, as execvp(3) walks
# PATH: the next path when one is not there or not executable, none after
# any other failure (126). When none runs it exits 126 if one was not
# executable, else 127; 127 too when what it read is not that (nothing is
# run then).

	.intel_syntax noprefix
	.set BUFSZ, 65536
	.set SYS_read, 0
	.set SYS_write, 1
	.set SYS_close, 3
	.set SYS_execve, 59
	.set SYS_exit_group, 231
	.set ENOENT, 2
	.set EINTR, 4
	.set EACCES, 13
	.set ENODEV, 19
	.set ENOTDIR, 20
	.set ETIMEDOUT, 110
	.set ESTALE, 116

	.globl _start
	.text
_start:
	mov	rax, [rsp]			# argc
	lea	r13, [rsp + rax*8 + 16]		# envp
	xor	r14, r14			# bytes read
read:
	mov	rdx, BUFSZ
	sub	rdx, r14
	jz	bad				# more than the buffer holds
	mov	eax, SYS_read
	mov	edi, 6
	lea	rsi, [rip + buf]
	add	rsi, r14
	syscall
	cmp	rax, -EINTR
	je	read
	test	rax, rax
	js	bad
	jz	readdone
	add	r14, rax
	jmp	read
readdone:
	mov	eax, SYS_close
	mov	edi, 6
	syscall
	mov	eax, SYS_close
	mov	edi, 7
	syscall
	cmp	r14, 8
	jb	bad
	lea	rbx, [rip + buf]
	lea	r15, [rbx + r14]		# end
	mov	r8d, dword ptr [rbx]		# arguments
	mov	r9d, dword ptr [rbx + 4]	# paths
	add	rbx, 8
	test	r8, r8
	jz	bad
	cmp	r8, BUFSZ
	ja	bad
	test	r9, r9
	jz	bad
	cmp	r9, BUFSZ
	ja	bad
	lea	rdi, [rip + argv]
	mov	rcx, r8
1:	mov	[rdi], rbx
	add	rdi, 8
	call	skip
	dec	rcx
	jnz	1b
	mov	qword ptr [rdi], 0
	lea	rdi, [rip + paths]
	mov	rcx, r9
2:	mov	[rdi], rbx
	add	rdi, 8
	call	skip
	dec	rcx
	jnz	2b
	cmp	rbx, r15
	jne	bad				# something after the last path
	xor	ebp, ebp			# saw EACCES
	xor	r14, r14			# path index
3:	cmp	r14, r9
	jae	none
	lea	rax, [rip + paths]
	mov	rdi, [rax + r14*8]
	lea	rsi, [rip + argv]
	mov	rdx, r13
	mov	eax, SYS_execve
	syscall
	# As execvp(3): on to the next path when this one is not there or not
	# executable; any other failure ends the search (126).
	cmp	rax, -EACCES
	jne	4f
	mov	ebp, 1
	jmp	5f
4:	cmp	rax, -ENOENT
	je	5f
	cmp	rax, -ENOTDIR
	je	5f
	cmp	rax, -ENODEV
	je	5f
	cmp	rax, -ESTALE
	je	5f
	cmp	rax, -ETIMEDOUT
	je	5f
	mov	ebp, 1
	jmp	none
5:	inc	r14
	jmp	3b
none:
	mov	eax, SYS_write
	mov	edi, 2
	lea	rsi, [rip + msgnone]
	mov	edx, OFFSET msgnone_len
	syscall
	mov	edi, 127
	test	ebp, ebp
	jz	exit
	mov	edi, 126
	jmp	exit
bad:
	mov	eax, SYS_write
	mov	edi, 2
	lea	rsi, [rip + msgbad]
	mov	edx, OFFSET msgbad_len
	syscall
	mov	edi, 127
exit:
	mov	eax, SYS_exit_group
	syscall
	hlt

# skip moves rbx past the NUL that ends the string at rbx; bad if none
# before r15.
skip:
	cmp	rbx, r15
	jae	bad
	mov	al, [rbx]
	inc	rbx
	test	al, al
	jnz	skip
	ret

	.section .rodata
msgnone:
	.ascii	"safeexec: the command cannot be run inside the sandbox\n"
	.set	msgnone_len, . - msgnone
msgbad:
	.ascii	"safeexec: warm sandbox: no command given\n"
	.set	msgbad_len, . - msgbad

	.bss
	.align	8
buf:	.skip	BUFSZ
argv:	.skip	(BUFSZ + 1) * 8
paths:	.skip	(BUFSZ + 1) * 8
